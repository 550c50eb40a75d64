import { ActionIcon, Group } from '@mantine/core'
import { IconArrowBarToUp, IconArrowDown, IconArrowUp } from '@tabler/icons-react'

/**
 * Moves a waiting job up, down or to the front of the queue: plain buttons, so a keyboard or a
 * screen reader moves jobs as easily as a mouse. `place` is the job's place among the open jobs (1 is the front).
 */
export function JobOrderButtons(props: {
  name: string
  place: number
  last: boolean
  pending: boolean
  onMove: (position: number) => void
}) {
  const first = props.place === 1
  const buttons = [
    { label: `Move ${props.name} to the top`, icon: IconArrowBarToUp, position: 1, disabled: first },
    { label: `Move ${props.name} up`, icon: IconArrowUp, position: props.place - 1, disabled: first },
    { label: `Move ${props.name} down`, icon: IconArrowDown, position: props.place + 1, disabled: props.last },
  ]
  return (
    <Group gap={4} wrap="nowrap">
      {buttons.map(({ label, icon: Icon, position, disabled }) => (
        <ActionIcon
          key={label}
          variant="default"
          aria-label={label}
          title={label}
          disabled={disabled || props.pending}
          onClick={() => props.onMove(position)}
        >
          <Icon size={16} aria-hidden />
        </ActionIcon>
      ))}
    </Group>
  )
}
