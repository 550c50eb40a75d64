import { Text } from '@mantine/core'
import type { FarmPrinter } from './types'

/** What a printer that clears its bed by script is doing about it: cooling, running the script, or nothing. */
export function ClearingStatus({ farm }: { farm: FarmPrinter }) {
  const run = farm.clearing
  if (farm.bed_clearing.by !== 'script' || !run) return null
  if (run.state === 'cooling')
    return (
      <Text size="sm" role="status">
        Clearing the bed (waiting to cool: {run.bed_c === null ? '?' : Math.round(run.bed_c)} °C → {run.below_c} °C)
      </Text>
    )
  if (run.state === 'running' || run.state === 'ran')
    return (
      <Text size="sm" role="status">
        Clearing the bed: {run.state === 'running' ? 'the script runs' : 'waiting for the printer to be idle'}
      </Text>
    )
  return null
}
