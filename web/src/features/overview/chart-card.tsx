import { ColorSwatch, Group, Paper, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'

export interface LegendEntry {
  name: string
  value: string
  /** A theme colour (`blue.6`); none for a row that is not a slice of the chart. */
  color?: string
}

/** A theme colour as CSS, for the swatch (the charts take the theme's `blue.6` form themselves). */
const cssColor = (color: string) => `var(--mantine-color-${color.replace('.', '-')})`

/**
 * A titled chart. The legend lists every figure in words as well, so the numbers are there for
 * screen readers and small screens, not only in the drawing.
 */
export function ChartCard(props: { title: string; empty?: string; legend?: LegendEntry[]; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="figure" m={0} aria-label={props.title}>
      <Stack gap="sm">
        <Title order={3} size="h5" component="figcaption">
          {props.title}
        </Title>
        {props.empty ? (
          <Text size="sm" c="dimmed">
            {props.empty}
          </Text>
        ) : (
          props.children
        )}
        {!props.empty && props.legend && (
          <Stack gap={4} component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
            {props.legend.map((entry) => (
              <Group key={entry.name} component="li" gap="xs" wrap="nowrap">
                {entry.color && <ColorSwatch color={cssColor(entry.color)} size={12} withShadow={false} aria-hidden />}
                <Text size="sm" style={{ flex: 1 }} truncate>
                  {entry.name}
                </Text>
                <Text size="sm" fw={600}>
                  {entry.value}
                </Text>
              </Group>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  )
}
