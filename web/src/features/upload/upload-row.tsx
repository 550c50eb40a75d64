import { ActionIcon, Group, Paper, Progress, Stack, Text, Tooltip } from '@mantine/core'
import { IconX } from '@tabler/icons-react'
import { formatBytes } from '../../ui/format-bytes'
import { UploadOutcome } from './upload-outcome'
import type { UploadItem } from './upload-queue'

const percentOf = (item: UploadItem) =>
  item.file.size === 0 ? (item.status === 'finished' ? 100 : 0) : Math.round((item.sentBytes / item.file.size) * 100)

const colorOf = (item: UploadItem) => {
  const kind = item.outcome?.kind
  if (kind === 'refused' || kind === 'failed') return 'red'
  if (kind === 'cancelled') return 'gray'
  if (kind) return 'teal'
  return undefined
}

/** What the file is doing, when it is not finished (a finished one shows its outcome). */
const stateText = {
  queued: 'Waiting',
  sending: 'Sending',
  // Past cancelling: the vault has every byte and keeps the file.
  processing: 'Processing… (the vault has it all)',
  finished: undefined,
}

/**
 * One file's bar: bytes sent while sending; while the vault processes the file (it does not say
 * how far it is), an indeterminate bar with no value, rather than a 100 % that is not done.
 */
function UploadBar({ item, label }: { item: UploadItem; label: string }) {
  if (item.status === 'processing')
    return (
      <Progress.Root>
        <Progress.Section
          value={100}
          striped
          animated
          withAria={false}
          role="progressbar"
          aria-label={label}
          aria-valuetext="Processing"
        />
      </Progress.Root>
    )
  return (
    <Progress value={percentOf(item)} color={colorOf(item)} animated={item.status === 'sending'} aria-label={label} />
  )
}

/** One file of the queue: its path, a progress bar with bytes and percent, its state, and its outcome or a cancel button. */
export function UploadRow({ item, onCancel }: { item: UploadItem; onCancel: () => void }) {
  const state = stateText[item.status]
  return (
    <Paper withBorder p="sm" component="li" aria-label={item.label}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Text size="sm" fw={500} truncate="end" title={item.label}>
            {item.label}
          </Text>
          {(item.status === 'queued' || item.status === 'sending') && (
            <Tooltip label="Cancel this upload">
              <ActionIcon variant="subtle" color="gray" onClick={onCancel} aria-label={`Cancel ${item.label}`}>
                <IconX size={16} aria-hidden />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
        <UploadBar item={item} label={`Upload of ${item.label}`} />
        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            {formatBytes(item.sentBytes)} of {formatBytes(item.file.size)}
            {item.status === 'processing' ? ' sent' : ` · ${percentOf(item)}%`}
          </Text>
          {state && (
            <Text size="xs" c="dimmed">
              {state}
            </Text>
          )}
        </Group>
        {item.outcome && <UploadOutcome outcome={item.outcome} />}
      </Stack>
    </Paper>
  )
}
