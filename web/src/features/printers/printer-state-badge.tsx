import { Badge, Group } from '@mantine/core'
import { stateColors, stateLabels } from './format'
import type { PrinterStatus } from './types'

/** The state word, and whether a job would be accepted now. */
export function PrinterStateBadge({ status }: { status: PrinterStatus }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Badge color={stateColors[status.state]} variant="filled">
        {stateLabels[status.state]}
      </Badge>
      <Badge color={status.ready ? 'green' : 'gray'} variant="light">
        {status.ready ? 'Ready' : 'Not ready'}
      </Badge>
    </Group>
  )
}
