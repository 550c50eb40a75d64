import { Paper, SimpleGrid, Text } from '@mantine/core'
import { formatCount, formatTimeLeft } from './format'
import type { AnalysisStatus } from './use-analysis'

const rate = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 })

/** The queue's figures, one tile each: waiting, rendering now, the rate and the time left. */
export function QueueFigures({ status }: { status: AnalysisStatus }) {
  const tiles = [
    { label: 'Waiting', value: formatCount(status.queued) },
    { label: 'Rendering now', value: formatCount(status.running) },
    { label: 'Rate', value: `${rate.format(status.rate_per_second)} per second`, note: 'over the last minute' },
    {
      label: 'Time left',
      value: status.seconds_left === null ? '—' : formatTimeLeft(status.seconds_left),
      note: status.seconds_left === null && status.queued + status.running > 0 ? 'not known yet' : undefined,
    },
  ]
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} component="dl" m={0}>
      {tiles.map((tile) => (
        <Paper key={tile.label} withBorder p="md">
          <Text component="dt" size="sm" c="dimmed">
            {tile.label}
          </Text>
          <Text component="dd" m={0} fz={24} fw={700} lh={1.2}>
            {tile.value}
          </Text>
          {tile.note && (
            <Text component="dd" m={0} size="xs" c="dimmed">
              {tile.note}
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  )
}
