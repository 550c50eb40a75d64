import { ActionIcon, Group, Paper, Progress, Stack, Text, Tooltip } from '@mantine/core'
import { IconX } from '@tabler/icons-react'
import { formatBytes } from '../../ui/format-bytes'
import { UploadOutcome } from './upload-outcome'
import type { UploadItem } from './upload-queue'

const percentOf = (item: UploadItem) =>
  item.file.size === 0 ? (item.status === 'finished' ? 100 : 0) : Math.round((item.sentBytes / item.file.size) * 100)

const colorOf = (item: UploadItem) => {
  const kind = item.outcome?.kind
  if (kind === 'refused') return 'red'
  if (kind === 'cancelled') return 'gray'
  if (kind) return 'teal'
  return undefined
}

/** One file of the queue: its path, a progress bar with bytes and percent, and its outcome or a cancel button. */
export function UploadRow({ item, onCancel }: { item: UploadItem; onCancel: () => void }) {
  const percent = percentOf(item)
  return (
    <Paper withBorder p="sm" component="li" aria-label={item.label}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Text size="sm" fw={500} truncate="end" title={item.label}>
            {item.label}
          </Text>
          {item.status !== 'finished' && (
            <Tooltip label="Cancel this upload">
              <ActionIcon variant="subtle" color="gray" onClick={onCancel} aria-label={`Cancel ${item.label}`}>
                <IconX size={16} aria-hidden />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
        <Progress
          value={percent}
          color={colorOf(item)}
          animated={item.status === 'uploading'}
          aria-label={`Upload of ${item.label}`}
        />
        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            {formatBytes(item.sentBytes)} of {formatBytes(item.file.size)} · {percent}%
          </Text>
          {item.status === 'queued' && (
            <Text size="xs" c="dimmed">
              Waiting
            </Text>
          )}
        </Group>
        {item.outcome && <UploadOutcome outcome={item.outcome} />}
      </Stack>
    </Paper>
  )
}
