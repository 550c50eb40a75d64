import { TagsInput } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { useTags } from '../../api/use-tags'
import { useUpdateModel } from './use-model'

/**
 * The model's tags: typing a tag and Enter (or a comma) adds it, its × removes it; saved at once.
 * Text typed but not confirmed is never saved: leaving the box clears it: typing "cal"
 * to find "calibration" must not make a tag "cal".
 */
export function TagsEditor({ modelId, tags }: { modelId: string; tags: string[] }) {
  const update = useUpdateModel(modelId)
  const known = useTags()
  const [search, setSearch] = useState('')
  return (
    <TagsInput
      label="Tags"
      description="Enter adds a tag; saved at once."
      placeholder={tags.length === 0 ? 'Add a tag' : undefined}
      value={tags}
      data={known.data?.map((tag) => tag.name) ?? []}
      onChange={(next) => update.mutate({ tags: next })}
      error={update.error ? problemMessage(update.error) : undefined}
      disabled={update.isPending}
      clearable
      splitChars={[',']}
      acceptValueOnBlur={false}
      searchValue={search}
      onSearchChange={setSearch}
      onBlur={() => setSearch('')}
    />
  )
}
