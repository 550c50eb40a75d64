import { MultiSelect, type OptionsFilter, Select } from '@mantine/core'
import { useState } from 'react'
import { useModelChoices } from './use-reshape'

interface PickerProps {
  label: string
  /** The model whose page this is: never offered. */
  exceptId: string
}

/**
 * Choices of models found by what is typed (names, files, tags), this one left out, and the
 * props a searchable Select or MultiSelect takes for them (the server filters, not the field).
 */
function useChoices(label: string, exceptId: string) {
  const [search, setSearch] = useState('')
  const models = useModelChoices(search)
  const data = (models.data ?? [])
    .filter((model) => model.id !== exceptId)
    .map((model) => ({ value: model.id, label: model.name }))
  const searchProps = {
    label,
    searchable: true,
    searchValue: search,
    onSearchChange: setSearch,
    filter: (({ options }) => options) satisfies OptionsFilter,
    nothingFoundMessage: 'No model found',
  }
  return { data, searchProps }
}

/** One other model, found by typing. */
export function ModelPicker(props: PickerProps & { value: string | null; onChange: (id: string | null) => void }) {
  const choices = useChoices(props.label, props.exceptId)
  return (
    <Select
      {...choices.searchProps}
      placeholder="Type to find a model"
      data={choices.data}
      value={props.value}
      onChange={props.onChange}
    />
  )
}

/** Several other models, found by typing. */
export function ModelsPicker(props: PickerProps & { value: string[]; onChange: (ids: string[]) => void }) {
  const choices = useChoices(props.label, props.exceptId)
  // Chosen models stay labelled when a new search no longer lists them.
  const [known, setKnown] = useState<Record<string, string>>({})
  const data = [
    ...props.value
      .filter((id) => !choices.data.some((option) => option.value === id))
      .map((id) => ({ value: id, label: known[id] ?? id })),
    ...choices.data,
  ]
  return (
    <MultiSelect
      {...choices.searchProps}
      placeholder="Type to find models"
      data={data}
      value={props.value}
      onChange={(ids) => {
        setKnown((labels) => ({ ...labels, ...Object.fromEntries(data.map((option) => [option.value, option.label])) }))
        props.onChange(ids)
      }}
    />
  )
}
