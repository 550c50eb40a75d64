import { Select } from '@mantine/core'
import type { CSSProperties } from 'react'

interface Choice {
  value: string
  label: string
}

/** A Select over a fixed list of choices that hands back the chosen one itself; one is always chosen. */
export function ChoiceSelect<C extends Choice>(props: {
  label: string
  description: string
  choices: C[]
  value: C
  onChange: (choice: C) => void
  style: CSSProperties
}) {
  const { choices, value, onChange, ...shown } = props
  return (
    <Select
      {...shown}
      data={choices}
      value={value.value}
      onChange={(chosen) => onChange(choices.find((choice) => choice.value === chosen) ?? value)}
      allowDeselect={false}
    />
  )
}
