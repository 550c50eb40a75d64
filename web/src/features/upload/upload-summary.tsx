import { Button, Group, Paper, Progress, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import { queueProgress, type UploadItem } from './upload-queue'

/**
 * The whole queue in one line and one bar: files done (a cancelled, refused or failed file is not),
 * those cancelled, refused, failed and processing, bytes sent of the bytes still meant to arrive; outcomes counted.
 */
export function UploadSummary(props: { items: readonly UploadItem[]; onCancelAll: () => void; onClear: () => void }) {
  const { items } = props
  const { total, sent, done, cancelled, refused, failed, processing, percent, busy } = queueProgress(items)
  const count = (kinds: string[]) => items.filter((item) => item.outcome && kinds.includes(item.outcome.kind)).length
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Text fw={500}>
            {[
              `${done} of ${items.length} files done`,
              cancelled > 0 && `${cancelled} cancelled`,
              refused > 0 && `${refused} refused`,
              failed > 0 && `${failed} failed`,
              processing > 0 && `${processing} processing`,
              `${formatBytes(sent)} of ${formatBytes(total)} sent`,
            ]
              .filter(Boolean)
              .join(' · ')}
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
          {count(['duplicate'])} already in the vault · {count(['refused'])} refused · {count(['failed'])} failed ·{' '}
          {count(['cancelled'])} cancelled · {plural(count(['archive']), 'zip', 'zips')} unpacked
        </Text>
      </Stack>
    </Paper>
  )
}
