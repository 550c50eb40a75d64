import { Alert, Group, Loader, Select, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { isWaiting } from './format'
import { QueueJob } from './queue-job'
import type { JobState } from './types'
import { useJobModels, useQueue } from './use-farm'

const views: { value: string; label: string; state: JobState | undefined }[] = [
  { value: 'open', label: 'Open jobs', state: undefined },
  { value: 'failed', label: 'Failed', state: 'failed' },
  { value: 'cancelled', label: 'Cancelled', state: 'cancelled' },
  { value: 'completed', label: 'Completed', state: 'completed' },
]

/**
 * The print queue in the order jobs go to printers, each with why it waits and its actions; the
 * ended jobs (failed, cancelled, completed) one choice away, to queue again.
 */
export function QueuePanel({ printerName }: { printerName: (id: string) => string | undefined }) {
  const [view, setView] = useState('open')
  const queue = useQueue(views.find((entry) => entry.value === view)?.state)
  const models = useJobModels((queue.data ?? []).map((job) => job.model_id))
  const waiting = (queue.data ?? []).filter(isWaiting)
  return (
    <Stack component="section" aria-labelledby="queue-heading" gap="sm">
      <Group justify="space-between" gap="xs">
        <Title order={2} size="h3" id="queue-heading">
          Queue
        </Title>
        <Select
          aria-label="Jobs shown"
          data={views.map(({ value, label }) => ({ value, label }))}
          value={view}
          onChange={(value) => setView(value ?? 'open')}
          allowDeselect={false}
          w={160}
        />
      </Group>
      {queue.isPending && <Loader size="sm" aria-label="Loading the queue" />}
      {queue.isError && (
        <Alert color="red" role="alert" title="The queue could not be loaded">
          {problemMessage(queue.error)}
        </Alert>
      )}
      {queue.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          {view === 'open'
            ? 'Nothing queued. Add G-code to the queue from a model’s files with "Add to queue".'
            : 'No such jobs.'}
        </Text>
      )}
      {queue.data && queue.data.length > 0 && (
        <Stack component="ol" gap="xs" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Print jobs in order">
          {queue.data.map((job) => {
            const model = models.get(job.model_id)
            const place = waiting.indexOf(job) + 1
            return (
              <QueueJob
                key={job.id}
                job={job}
                place={place}
                last={place === waiting.length}
                names={{
                  model: model?.name,
                  files: job.file_ids.map(
                    (id) => model?.files.find((file) => file.id === id)?.name ?? 'a removed file',
                  ),
                  printer: printerName,
                }}
              />
            )
          })}
        </Stack>
      )}
    </Stack>
  )
}
