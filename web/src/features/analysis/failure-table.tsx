import { Anchor, Button, Stack, Text } from '@mantine/core'
import { IconRefresh } from '@tabler/icons-react'
import { Link } from 'react-router'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { formatDateTime } from './format'
import type { AnalysisFailure } from './use-analysis'

/**
 * The failed analyses, newest first: the files holding each content (linking to their models),
 * why it failed, when, how many tries, and a Retry button. `retrying` is the content being
 * queued again, whose button waits.
 */
export function FailureTable({
  failures,
  retrying,
  onRetry,
}: {
  failures: AnalysisFailure[]
  retrying: string | undefined
  onRetry: (sha256: string) => void
}) {
  const nameOf = (failure: AnalysisFailure) => failure.files.map((file) => file.name).join(', ') || failure.sha256
  const columns: DataColumn<AnalysisFailure>[] = [
    {
      key: 'files',
      header: 'Files',
      cell: (failure) =>
        failure.files.length === 0 ? (
          <Text size="sm" c="dimmed" ff="monospace">
            {failure.sha256.slice(0, 12)}
          </Text>
        ) : (
          <Stack gap={2}>
            {failure.files.map((file) => (
              <Anchor key={file.id} component={Link} to={`/models/${file.model_id}`} size="sm">
                {file.name}
              </Anchor>
            ))}
          </Stack>
        ),
    },
    { key: 'reason', header: 'Reason', cell: (failure) => <Text size="sm">{failure.reason}</Text> },
    { key: 'when', header: 'When', cell: (failure) => formatDateTime(failure.failed_at) },
    { key: 'attempts', header: 'Attempts', cell: (failure) => failure.attempts },
    {
      key: 'actions',
      header: null,
      cell: (failure) => (
        <Button
          size="xs"
          variant="default"
          leftSection={<IconRefresh size={14} aria-hidden />}
          aria-label={`Retry ${nameOf(failure)}`}
          loading={retrying === failure.sha256}
          onClick={() => onRetry(failure.sha256)}
        >
          Retry
        </Button>
      ),
    },
  ]
  return <DataTable label="Failed analyses" columns={columns} rows={failures} rowKey={(failure) => failure.sha256} />
}
