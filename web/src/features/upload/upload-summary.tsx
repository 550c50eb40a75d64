import { Button, Group, Paper, Progress, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import type { UploadItem } from './use-upload-queue'

/** The whole queue in one line and one bar: files done, bytes sent, outcomes counted. */
export function UploadSummary(props: { items: UploadItem[]; onCancelAll: () => void; onClear: () => void }) {
  const { items } = props
  const total = items.reduce((sum, item) => sum + item.file.size, 0)
  const sent = items.reduce((sum, item) => sum + (item.status === 'finished' ? item.file.size : item.sentBytes), 0)
  const finished = items.filter((item) => item.status === 'finished').length
  const count = (kinds: string[]) => items.filter((item) => item.outcome && kinds.includes(item.outcome.kind)).length
  const percent = total === 0 ? (finished === items.length ? 100 : 0) : Math.round((sent / total) * 100)
  const busy = finished < items.length
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Text fw={500}>
            {finished} of {items.length} files done · {formatBytes(sent)} of {formatBytes(total)}
          </Text>
          <Group gap="xs">
            {busy ? (
              <Button variant="light" color="red" size="xs" onClick={props.onCancelAll}>
                Cancel all
              </Button>
            ) : (
              <Button variant="default" size="xs" onClick={props.onClear}>
                Clear the list
              </Button>
            )}
          </Group>
        </Group>
        <Progress value={percent} size="lg" aria-label="All uploads" />
        <Text size="sm" c="dimmed" aria-live="polite">
          {plural(count(['new-model']), 'new model', 'new models')} · {count(['joined-model'])} joined a model ·{' '}
          {count(['duplicate'])} already in the vault · {count(['refused'])} refused · {count(['cancelled'])} cancelled
        </Text>
      </Stack>
    </Paper>
  )
}
