import { Badge, Stack, Text } from '@mantine/core'
import type { Backup } from './use-backups'

const statusColor = { running: 'blue', complete: 'green', failed: 'red' } as const
const statusLabel = { running: 'Running', complete: 'Complete', failed: 'Failed' } as const

/** A backup's state as a badge, with the reason when it failed. */
export function BackupStatus({ backup }: { backup: Backup }) {
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={statusColor[backup.status]} variant="light">
        {backup.status === 'running'
          ? `${statusLabel.running} ${Math.round(backup.progress * 100)} %`
          : statusLabel[backup.status]}
      </Badge>
      {backup.error && (
        <Text size="xs" c="red">
          {backup.error}
        </Text>
      )}
    </Stack>
  )
}

const copyLabel = {
  stored: 'Stored',
  pending: 'Copying',
  uploaded: 'Copied and checked',
  failed: 'Copy failed',
  not_configured: 'Not configured',
} as const
const copyColor = {
  stored: 'green',
  pending: 'blue',
  uploaded: 'green',
  failed: 'red',
  not_configured: 'gray',
} as const

/** The offsite (S3) copy of a backup: its state, or that no bucket is configured. */
export function OffsiteCopy({ backup }: { backup: Backup }) {
  const copy = backup.locations.find((location) => location.kind === 's3')
  if (!copy) return <Text size="sm">Not configured</Text>
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={copyColor[copy.status]} variant="light">
        {copyLabel[copy.status]}
      </Badge>
      {copy.error && (
        <Text size="xs" c="red">
          {copy.error}
        </Text>
      )}
    </Stack>
  )
}
