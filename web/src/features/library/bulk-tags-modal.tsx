import { TagsInput } from '@mantine/core'
import { useState } from 'react'
import { BulkFormModal } from './bulk-form-modal'

/** Asks which tags to add to (or take off) the selected models; offers the library's tags. */
export function BulkTagsModal(props: {
  opened: boolean
  removing: boolean
  /** "12 models", "all 80 matching models". */
  selectedLabel: string
  tagNames: string[]
  error: unknown
  pending: boolean
  onApply: (tags: string[]) => void
  onClose: () => void
}) {
  const [tags, setTags] = useState<string[]>([])
  return (
    <BulkFormModal
      opened={props.opened}
      title={props.removing ? 'Remove tags' : 'Add tags'}
      description={
        props.removing
          ? `Take these tags off ${props.selectedLabel}.`
          : `Add these tags to ${props.selectedLabel}; they keep their other tags.`
      }
      ready={tags.length > 0}
      error={props.error}
      pending={props.pending}
      onSubmit={() => props.onApply(tags)}
      onClose={props.onClose}
    >
      <TagsInput
        label="Tags"
        data={props.tagNames}
        value={tags}
        onChange={setTags}
        placeholder="Type a tag, then Enter"
        splitChars={[',']}
      />
    </BulkFormModal>
  )
}
