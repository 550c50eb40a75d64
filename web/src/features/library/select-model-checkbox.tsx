import { Checkbox } from '@mantine/core'
import type { SelectModel } from './use-model-selection'

/**
 * Ticks a model for the selection bar's actions. Named after the model for screen readers; Space
 * ticks it, and Shift with a click (or Space) ticks the range from the last model ticked.
 */
export function SelectModelCheckbox({
  name,
  index,
  checked,
  onSelect,
}: {
  name: string
  index: number
  checked: boolean
  onSelect: SelectModel
}) {
  return (
    <Checkbox
      aria-label={`Select ${name}`}
      checked={checked}
      // React's change of a checkbox is the click: its Shift key is the click's.
      onChange={(event) => onSelect(index, (event.nativeEvent as MouseEvent).shiftKey)}
    />
  )
}
