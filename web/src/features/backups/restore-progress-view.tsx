import { Progress, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import { restorePhase } from './format'
import type { RestoreProgress } from './use-restore-progress'

/** A running restore's phase and the archive bytes checked so far. */
export function RestoreProgressView({ progress }: { progress: RestoreProgress }) {
  const { bytes_done: done, bytes_total: total } = progress
  const verifying = progress.phase === 'verifying'
  const percent = verifying && total ? (done / total) * 100 : 100
  return (
    <Stack gap={4}>
      <Progress value={percent} animated aria-label="Restore progress" />
      <Text size="sm">
        {restorePhase(progress.phase)}
        {verifying && total ? `: ${formatBytes(done)} of ${formatBytes(total)}` : ''}
      </Text>
    </Stack>
  )
}
