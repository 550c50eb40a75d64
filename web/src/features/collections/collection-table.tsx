import { useState } from 'react'
import { DeleteCollectionModal } from './delete-collection-modal'
import { libraryOfCollection } from './library-links'
import { NamedCountTable } from './named-count-table'
import { RenameCollectionModal } from './rename-collection-modal'
import type { Collection } from './use-collections'

type Editing = { action: 'rename' | 'delete'; collection: Collection }

/** The collections with their model counts; each name opens the library filtered by it. */
export function CollectionTable({ collections }: { collections: Collection[] }) {
  const [editing, setEditing] = useState<Editing>()
  const close = () => setEditing(undefined)
  const edit = (action: Editing['action']) => (id: string) => {
    const collection = collections.find((each) => each.id === id)
    if (collection) setEditing({ action, collection })
  }
  return (
    <>
      <NamedCountTable
        label="Collections"
        nameHeader="Name"
        noun=""
        rows={collections.map((collection) => ({
          key: collection.id,
          name: collection.name,
          to: libraryOfCollection(collection.id),
          count: collection.model_count,
        }))}
        onRename={edit('rename')}
        onDelete={edit('delete')}
      />
      {editing?.action === 'rename' && <RenameCollectionModal collection={editing.collection} onClose={close} />}
      {editing?.action === 'delete' && <DeleteCollectionModal collection={editing.collection} onClose={close} />}
    </>
  )
}
