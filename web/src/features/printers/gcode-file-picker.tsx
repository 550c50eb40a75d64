import { Select, Stack } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { useEffect, useState } from 'react'
import { problemMessage } from '../../api/problem'
import type { GcodeFile } from './types'
import { useGcodeModels, useModelGcodeFiles } from './use-gcode-files'

/** Chooses a stored G-code file: a model that has one (searchable), then which of its G-code files. */
export function GcodeFilePicker({ onChange }: { onChange: (file: GcodeFile | null) => void }) {
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search, 250)
  const [modelId, setModelId] = useState<string | null>(null)
  const [fileId, setFileId] = useState<string | null>(null)
  const models = useGcodeModels(debounced)
  const files = useModelGcodeFiles(modelId)

  // A model with a single G-code file needs no second choice.
  const only = files.data?.length === 1 ? files.data[0] : undefined
  useEffect(() => {
    if (only) setFileId(only.id)
  }, [only])
  useEffect(() => {
    const file = files.data?.find((candidate) => candidate.id === fileId)
    onChange(file ? { id: file.id, name: file.name } : null)
  }, [files.data, fileId, onChange])

  return (
    <Stack gap="xs">
      <Select
        label="Model"
        placeholder="Search models with G-code"
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        filter={({ options }) => options}
        nothingFoundMessage={models.isPending ? 'Loading…' : 'No model with G-code matches'}
        data={(models.data ?? []).map((model) => ({ value: model.id, label: model.name }))}
        value={modelId}
        onChange={(value) => {
          setModelId(value)
          setFileId(null)
        }}
        error={models.isError ? problemMessage(models.error) : undefined}
      />
      {modelId && (
        <Select
          label="G-code file"
          placeholder={files.isPending ? 'Loading…' : 'Choose a file'}
          data={(files.data ?? []).map((file) => ({ value: file.id, label: file.name }))}
          value={fileId}
          onChange={setFileId}
          error={files.isError ? problemMessage(files.error) : undefined}
        />
      )}
    </Stack>
  )
}
