import { Badge, Group } from '@mantine/core'
import { IconCheck, IconX } from '@tabler/icons-react'
import { stateColors, stateLabels } from './format'
import type { PrinterStatus } from './types'

/** The state word, and whether a job would be accepted now. */
export function PrinterStateBadge({ status }: { status: PrinterStatus }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Badge color={stateColors[status.state]} variant="light" size="lg">
        {stateLabels[status.state]}
      </Badge>
      <Badge
        color={status.ready ? 'green' : 'gray'}
        variant="light"
        size="lg"
        leftSection={status.ready ? <IconCheck size={14} aria-hidden /> : <IconX size={14} aria-hidden />}
      >
        {status.ready ? 'Ready' : 'Not ready'}
      </Badge>
    </Group>
  )
}
