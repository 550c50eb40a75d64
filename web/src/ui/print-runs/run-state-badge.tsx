import { Badge } from '@mantine/core'
import { runStateColors, runStateLabels } from './format'
import type { PrintRun } from './use-print-runs'

/** How a print run ended (or that it still prints), in words and a colour. */
export function RunStateBadge({ state }: { state: PrintRun['state'] }) {
  return (
    <Badge color={runStateColors[state]} variant="light">
      {runStateLabels[state]}
    </Badge>
  )
}
