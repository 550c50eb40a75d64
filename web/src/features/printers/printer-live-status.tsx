import { Group, Progress, Stack, Text } from '@mantine/core'
import { IconFlame, IconTemperature } from '@tabler/icons-react'
import { formatDuration, formatTemperature } from './format'
import { PrinterStateBadge } from './printer-state-badge'
import type { PrinterStatus } from './types'

/** A printer's live state: the state and why, the job with its progress and time left, temperatures. */
export function PrinterLiveStatus({ name, status }: { name: string; status: PrinterStatus }) {
  const { job } = status
  const percent = job?.progress === null || job?.progress === undefined ? null : Math.round(job.progress * 100)
  return (
    <Stack gap="xs">
      <PrinterStateBadge status={status} />
      {status.reason && (
        <Text size="sm" c="dimmed">
          {status.reason}
        </Text>
      )}
      {job && (
        <Stack gap={4}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {job.file_name ?? 'A job without a file name'}
          </Text>
          <Progress
            value={percent ?? 0}
            aria-label={`Job progress on ${name}`}
            striped={status.state === 'printing'}
            animated={status.state === 'printing'}
            size="lg"
          />
          <Group justify="space-between" gap="xs">
            <Text size="sm">{percent === null ? 'Progress unknown' : `${percent} %`}</Text>
            <Text size="sm" c="dimmed">
              {job.time_left_s === null
                ? 'time left unknown'
                : job.time_left_s === 0
                  ? 'done'
                  : `${formatDuration(job.time_left_s)} left`}
            </Text>
          </Group>
        </Stack>
      )}
      <Group gap="md" style={{ rowGap: 4 }}>
        <Group gap={4} wrap="nowrap">
          <IconFlame size={16} aria-hidden />
          <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
            Nozzle {formatTemperature(status.temperatures.nozzle)}
          </Text>
        </Group>
        <Group gap={4} wrap="nowrap">
          <IconTemperature size={16} aria-hidden />
          <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
            Bed {formatTemperature(status.temperatures.bed)}
          </Text>
        </Group>
      </Group>
      {status.stale && (
        <Text size="xs" c="dimmed">
          Last seen {new Date(status.observed_at).toLocaleTimeString()}; asking again.
        </Text>
      )}
    </Stack>
  )
}
