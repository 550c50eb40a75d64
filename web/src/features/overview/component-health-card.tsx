import { Badge, Group, Paper, Stack, Text, ThemeIcon } from '@mantine/core'
import { type Icon, IconAlertTriangle, IconCircleCheck, IconCircleX } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import type { components } from '../../api/schema'
import { formatBytes } from '../../ui/format-bytes'

type HealthComponent = components['schemas']['HealthComponent']

const statusLook: Record<HealthComponent['status'], { label: string; color: string; icon: Icon }> = {
  pass: { label: 'Working', color: 'teal.9', icon: IconCircleCheck },
  warn: { label: 'Attention', color: 'yellow.4', icon: IconAlertTriangle },
  fail: { label: 'Down', color: 'red.9', icon: IconCircleX },
}

/** Facts worth a glance, in words; details with no value (no backup yet) are left out. */
const detailText = (details: HealthComponent['details']) =>
  Object.entries(details ?? {})
    .filter(([, value]) => value !== null && value !== '')
    .map(([key, value]) => {
      const name = key.replaceAll('_', ' ')
      return typeof value === 'number' && key.endsWith('bytes') ? `${name}: ${formatBytes(value)}` : `${name}: ${value}`
    })
    .join(' · ')

/** One component of the health report: its name, a status in words, why it is not working, and `children` (what to do). */
export function ComponentHealthCard(props: {
  title: string
  purpose: string
  health: HealthComponent
  children?: ReactNode
}) {
  const look = statusLook[props.health.status]
  const facts = detailText(props.health.details)
  return (
    <Paper withBorder p="md" component="section" aria-label={`${props.title} health`}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Group gap="xs" wrap="nowrap">
            <ThemeIcon variant="light" color={look.color} size="md" aria-hidden>
              <look.icon size={18} stroke={1.5} />
            </ThemeIcon>
            <Text fw={600}>{props.title}</Text>
          </Group>
          {/* Filled, with text that contrasts (dark on yellow), in both colour schemes. */}
          <Badge color={look.color} variant="filled" autoContrast style={{ flexShrink: 0 }}>
            {look.label}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          {props.purpose}
          {props.health.required ? '' : ' Optional: the vault works without it.'}
        </Text>
        {props.health.reason && (
          <Text size="sm">{props.health.reason[0]?.toUpperCase() + props.health.reason.slice(1)}.</Text>
        )}
        {props.children}
        {facts && (
          <Text size="xs" c="dimmed">
            {facts}
          </Text>
        )}
      </Stack>
    </Paper>
  )
}
