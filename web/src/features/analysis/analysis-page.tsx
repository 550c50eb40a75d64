import { Alert, Button, Group, Loader, Stack, Text, Title } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconRefresh } from '@tabler/icons-react'
import { problemMessage } from '../../api/problem'
import { FailureTable } from './failure-table'
import { filesOf } from './format'
import { QueueFigures } from './queue-figures'
import { useAnalysis, useRetryAnalysis } from './use-analysis'

/**
 * Settings → Analysis: the background rendering of thumbnails and previews. Its figures (waiting,
 * rendering now, rate, time left) and the failures with their reasons, each to retry, or all.
 */
export function AnalysisPage() {
  const analysis = useAnalysis()
  const retry = useRetryAnalysis()
  const retryAll = retry.isPending && retry.variables === undefined
  const run = (sha256?: string) =>
    retry.mutate(sha256, {
      onSuccess: ({ retried }) =>
        notifications.show({
          color: retried > 0 ? 'blue' : 'gray',
          closeButtonProps: { 'aria-label': 'Dismiss' },
          message: retried > 0 ? `${filesOf(retried)} queued again.` : 'Nothing was waiting to be retried.',
        }),
      onError: (error) =>
        notifications.show({ color: 'red', title: 'Not queued again', message: problemMessage(error) }),
    })
  return (
    <Stack gap="xl">
      <Stack gap={4}>
        <Title order={1}>Analysis</Title>
        <Text size="sm" c="dimmed">
          Uploads are stored at once; their thumbnails and previews are rendered afterwards, in the background.
        </Text>
      </Stack>
      {analysis.isPending && <Loader size="sm" aria-label="Loading the analysis queue" />}
      {analysis.error && (
        <Alert color="red" title="Cannot load the analysis queue">
          {problemMessage(analysis.error)}
        </Alert>
      )}
      {analysis.data && (
        <Stack component="section" aria-labelledby="queue-heading">
          <Title order={2} size="h3" id="queue-heading">
            Queue
          </Title>
          <QueueFigures status={analysis.data} />
        </Stack>
      )}
      {analysis.data && (
        <Stack component="section" aria-labelledby="failures-heading">
          <Group justify="space-between">
            <Title order={2} size="h3" id="failures-heading">
              Failures
            </Title>
            {analysis.data.failures.length > 0 && (
              <Button
                variant="light"
                leftSection={<IconRefresh size={16} aria-hidden />}
                loading={retryAll}
                onClick={() => run()}
              >
                Retry all
              </Button>
            )}
          </Group>
          {analysis.data.failures.length === 0 ? (
            <Text c="dimmed">Nothing failed: every file was analysed, or is on its way.</Text>
          ) : (
            <>
              {analysis.data.failed > analysis.data.failures.length && (
                <Text size="sm" c="dimmed">
                  The {analysis.data.failures.length} most recent of {analysis.data.failed} failures.
                </Text>
              )}
              <FailureTable
                failures={analysis.data.failures}
                retrying={retry.isPending ? retry.variables : undefined}
                onRetry={run}
              />
            </>
          )}
        </Stack>
      )}
    </Stack>
  )
}
