import { Alert, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { ComponentHealthCard } from './component-health-card'
import type { HealthReport } from './use-health'
import { useHealth } from './use-health'

const componentInfo: { key: keyof HealthReport['components']; title: string; purpose: string }[] = [
  { key: 'database', title: 'Database', purpose: 'Models, files, tags and accounts.' },
  { key: 'storage', title: 'Storage', purpose: 'The files themselves and their thumbnails.' },
  { key: 'backup', title: 'Backup', purpose: 'The backup destination and the age of the last backup.' },
  { key: 'printer-provider', title: 'Printers', purpose: 'Whether the registered printers answer.' },
]

const overallText: Record<HealthReport['status'], string> = {
  pass: 'Everything is working.',
  warn: 'The vault works, but something needs attention.',
  fail: 'A required part of the vault is down.',
}

/** The health of the vault's four components, refreshed while the page is open. */
export function HealthPanel() {
  const health = useHealth()
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        Health
      </Title>
      {health.isPending && <Loader size="sm" aria-label="Checking health" />}
      {health.isError && (
        <Alert color="red" role="alert" title="Health unknown">
          {problemMessage(health.error)}
        </Alert>
      )}
      {health.data && (
        <>
          <Group gap="xs">
            <Text size="sm">{overallText[health.data.status]}</Text>
            <Text size="xs" c="dimmed">
              Checked {new Date(health.data.checked_at).toLocaleTimeString()} · version {health.data.service.version}
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {componentInfo.map((info) => (
              <ComponentHealthCard
                key={info.key}
                title={info.title}
                purpose={info.purpose}
                health={health.data.components[info.key]}
              />
            ))}
          </SimpleGrid>
        </>
      )}
    </Stack>
  )
}
