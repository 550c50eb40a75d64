import type { DraggableProvided } from '@hello-pangea/dnd'
import { ActionIcon, Anchor, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core'
import { IconGripVertical } from '@tabler/icons-react'
import { useState } from 'react'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { ConfirmModal } from '../../ui/confirm-modal'
import { ChangeJobModal } from './change-job-modal'
import { isWaiting, stateColors, stateLabels, targetText } from './format'
import { JobOrderButtons } from './job-order-buttons'
import type { PrintJob } from './types'
import { useJobAction, useMoveJob } from './use-farm'

export interface JobNames {
  model: string | undefined
  files: string[]
  printer: (id: string) => string | undefined
}

/**
 * One job of the queue: its model and files, copies done of wanted, target, priority, state and
 * why it waits or last failed; hold / release / cancel (asked first) / queue again, and moving it
 * (by its buttons, or dragged by its handle: `drag` is what the queue's drag-and-drop list provides).
 */
export function QueueJob(props: {
  job: PrintJob
  names: JobNames
  place: number
  last: boolean
  drag: DraggableProvided
}) {
  const { job, names } = props
  const action = useJobAction()
  const move = useMoveJob()
  const [cancelling, setCancelling] = useState(false)
  const [changing, setChanging] = useState(false)
  const title = names.model ?? 'A model'
  const run = (kind: 'hold' | 'release' | 'requeue' | 'printed') => action.mutate({ id: job.id, action: kind })
  return (
    <Paper
      withBorder
      p="sm"
      component="li"
      aria-label={`${title}, ${stateLabels[job.state].toLowerCase()}`}
      ref={props.drag.innerRef}
      {...props.drag.draggableProps}
    >
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
          <Group gap={4} wrap="nowrap" align="flex-start">
            {isWaiting(job) && (
              <ActionIcon
                component="span"
                variant="subtle"
                color="gray"
                aria-label={`Drag ${title} to another place`}
                title="Drag to another place (or focus and press space, then the arrow keys)"
                style={{ cursor: 'grab', flexShrink: 0 }}
                {...props.drag.dragHandleProps}
              >
                <IconGripVertical size={16} aria-hidden />
              </ActionIcon>
            )}
            <Anchor component={Link} to={`/models/${job.model_id}`} fw={600} style={{ overflowWrap: 'anywhere' }}>
              {title}
            </Anchor>
          </Group>
          <Badge color={stateColors[job.state]} variant="light" style={{ flexShrink: 0 }}>
            {stateLabels[job.state]}
          </Badge>
        </Group>
        {names.files.length > 0 && (
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {names.files.join(', ')}
          </Text>
        )}
        <Group gap="md" style={{ rowGap: 2 }}>
          <Text size="sm">
            {job.copies_done} of {job.copies} {job.copies === 1 ? 'copy' : 'copies'} done
          </Text>
          <Text size="sm">{targetText(job.target, names.printer)}</Text>
          <Text size="sm">Priority {job.priority}</Text>
          {job.attempts > 0 && (
            <Text size="sm">
              {job.attempts} of {job.max_attempts} tries failed
            </Text>
          )}
        </Group>
        {job.state === 'printing' && job.printer_id && (
          <Text size="sm">Printing on {names.printer(job.printer_id) ?? 'a removed printer'}</Text>
        )}
        {isWaiting(job) && job.wait_reason && (
          <Text size="sm" c="dimmed">
            Waits: {job.wait_reason}
          </Text>
        )}
        {job.last_error && (
          <Text size="sm" c="red">
            Last failure: {job.last_error}
          </Text>
        )}
        <Group justify="space-between" gap="xs">
          <Group gap="xs">
            {job.state === 'queued' && (
              <Button size="xs" variant="default" loading={action.isPending} onClick={() => run('hold')}>
                Hold
              </Button>
            )}
            {job.state === 'held' && (
              <Button size="xs" variant="default" loading={action.isPending} onClick={() => run('release')}>
                Release
              </Button>
            )}
            {job.state === 'held' && job.last_error && (
              <Button size="xs" variant="default" loading={action.isPending} onClick={() => run('printed')}>
                It printed
              </Button>
            )}
            {(job.state === 'failed' || job.state === 'cancelled') && (
              <Button size="xs" variant="default" loading={action.isPending} onClick={() => run('requeue')}>
                Queue again
              </Button>
            )}
            {(isWaiting(job) || job.state === 'failed') && (
              <Button size="xs" variant="default" onClick={() => setChanging(true)}>
                Change
              </Button>
            )}
            {isWaiting(job) && (
              <Button size="xs" variant="subtle" color="red" onClick={() => setCancelling(true)}>
                Cancel
              </Button>
            )}
          </Group>
          {isWaiting(job) && (
            <JobOrderButtons
              name={title}
              place={props.place}
              last={props.last}
              pending={move.isPending}
              onMove={(position) => move.mutate({ id: job.id, position })}
            />
          )}
        </Group>
        {(action.isError || move.isError) && (
          <Text size="sm" c="red" role="alert">
            {problemMessage(action.error ?? move.error)}
          </Text>
        )}
      </Stack>
      {changing && <ChangeJobModal job={job} name={title} onClose={() => setChanging(false)} />}
      <ConfirmModal
        opened={cancelling}
        title="Cancel this job?"
        confirmLabel="Cancel job"
        cancelLabel="Keep it"
        error={action.error}
        pending={action.isPending}
        onConfirm={() => action.mutate({ id: job.id, action: 'cancel' }, { onSuccess: () => setCancelling(false) })}
        onClose={() => setCancelling(false)}
      >
        {title} leaves the queue; copies already printed stay counted. A cancelled job can be queued again.
      </ConfirmModal>
    </Paper>
  )
}
