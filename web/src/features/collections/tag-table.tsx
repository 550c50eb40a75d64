import { useState } from 'react'
import { DeleteTagModal } from './delete-tag-modal'
import { libraryOfTag } from './library-links'
import { NamedCountTable } from './named-count-table'
import { RenameTagModal } from './rename-tag-modal'
import type { Tag } from './use-tags'

type Editing = { action: 'rename' | 'delete'; tag: Tag }

/** The tags in use with their model counts; each opens the library filtered by it, and can be renamed, merged or deleted. */
export function TagTable({ tags }: { tags: Tag[] }) {
  const [editing, setEditing] = useState<Editing>()
  const close = () => setEditing(undefined)
  const edit = (action: Editing['action']) => (name: string) => {
    const tag = tags.find((each) => each.name === name)
    if (tag) setEditing({ action, tag })
  }
  return (
    <>
      <NamedCountTable
        label="Tags"
        nameHeader="Tag"
        noun="tag"
        rows={tags.map((tag) => ({
          key: tag.name,
          name: tag.name,
          to: libraryOfTag(tag.name),
          count: tag.model_count,
        }))}
        onRename={edit('rename')}
        onDelete={edit('delete')}
      />
      {editing?.action === 'rename' && <RenameTagModal tag={editing.tag} tags={tags} onClose={close} />}
      {editing?.action === 'delete' && <DeleteTagModal tag={editing.tag} onClose={close} />}
    </>
  )
}
