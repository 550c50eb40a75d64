import { DragDropContext, Draggable, Droppable, type DropResult } from '@hello-pangea/dnd'
import { Alert, Button, Group, Loader, Select, Stack, Text, Title } from '@mantine/core'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { isWaiting } from './format'
import { farmKeys } from './query-keys'
import { dropJob, jobsOf, samePages } from './queue-drop'
import { QueueJob } from './queue-job'
import type { JobState } from './types'
import { useJobModels, useMoveJob, useQueue } from './use-farm'

const views: { value: string; label: string; state: JobState | undefined }[] = [
  { value: 'open', label: 'Open jobs', state: undefined },
  { value: 'failed', label: 'Failed', state: 'failed' },
  { value: 'cancelled', label: 'Cancelled', state: 'cancelled' },
  { value: 'completed', label: 'Completed', state: 'completed' },
]

/**
 * The print queue in the order jobs go to printers, each with why it waits and its actions; the
 * ended jobs (failed, cancelled, completed) one choice away, to queue again. Waiting jobs move by
 * dragging (by pointer, or by keyboard on the handle: space, arrows, space) or by their buttons.
 * A long queue shows a page at a time; "Show more jobs" adds the next, and the jobs shown move among
 * themselves, the last one down past the page too.
 */
export function QueuePanel({ printerName }: { printerName: (id: string) => string | undefined }) {
  const [view, setView] = useState('open')
  const state = views.find((entry) => entry.value === view)?.state
  const queue = useQueue(state)
  const jobs = queue.data && jobsOf(queue.data.pages)
  const models = useJobModels((jobs ?? []).map((job) => job.model_id))
  const waiting = (jobs ?? []).filter(isWaiting)
  const queryClient = useQueryClient()
  const move = useMoveJob()
  const drop = ({ source, destination, draggableId }: DropResult) => {
    if (!queue.data || !jobs || !destination || destination.index === source.index) return
    const dropped = dropJob(jobs, source.index, destination.index)
    // Shown where it was dropped at once; the answer, or a refusal's refresh, settles it.
    queryClient.setQueryData(farmKeys.queue(state), { ...queue.data, pages: samePages(queue.data.pages, dropped.jobs) })
    move.mutate({ id: draggableId, position: dropped.position })
  }
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
      {jobs?.length === 0 && (
        <Text size="sm" c="dimmed">
          {view === 'open'
            ? 'Nothing queued. Add G-code to the queue from a model’s files with "Add to queue".'
            : 'No such jobs.'}
        </Text>
      )}
      {move.isError && (
        <Text size="sm" c="red" role="alert">
          {problemMessage(move.error)}
        </Text>
      )}
      {jobs && jobs.length > 0 && (
        <DragDropContext onDragEnd={drop}>
          <Droppable droppableId="queue">
            {(list) => (
              <Stack
                component="ol"
                gap="xs"
                m={0}
                p={0}
                style={{ listStyle: 'none' }}
                aria-label="Print jobs in order"
                ref={list.innerRef}
                {...list.droppableProps}
              >
                {jobs.map((job, index) => {
                  const model = models.get(job.model_id)
                  const place = waiting.indexOf(job) + 1
                  return (
                    <Draggable key={job.id} draggableId={job.id} index={index} isDragDisabled={!isWaiting(job)}>
                      {(drag) => (
                        <QueueJob
                          job={job}
                          place={place}
                          last={place === waiting.length && !queue.hasNextPage}
                          drag={drag}
                          names={{
                            model: model?.name,
                            files: job.file_ids.map(
                              (id) => model?.files.find((file) => file.id === id)?.name ?? 'a removed file',
                            ),
                            printer: printerName,
                          }}
                        />
                      )}
                    </Draggable>
                  )
                })}
                {list.placeholder}
              </Stack>
            )}
          </Droppable>
        </DragDropContext>
      )}
      {jobs && queue.hasNextPage && (
        <Group justify="space-between" gap="xs">
          <Text size="sm" c="dimmed">
            The first {jobs.length} jobs in order are shown; more wait behind them.
          </Text>
          <Button variant="default" size="xs" loading={queue.isFetchingNextPage} onClick={() => queue.fetchNextPage()}>
            Show more jobs
          </Button>
        </Group>
      )}
    </Stack>
  )
}
