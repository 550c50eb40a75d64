import { TextInput } from '@mantine/core'
import type { CSSProperties } from 'react'

/**
 * What a combobox of the library toolbar looks like before it is drawn: a disabled text input of
 * the same label and size showing the current choice. Mantine's four comboboxes cost a cold page's
 * first drawing 100–150 ms (docs/benchmarks.md, first model cards), so the page draws these first
 * and the comboboxes just after (disabled, so nothing typed or clicked in that moment is lost).
 */
export function StandInInput({ label, value, style }: { label: string; value: string; style: CSSProperties }) {
  return <TextInput label={label} value={value} placeholder="Any" disabled readOnly style={style} />
}
