import { useState } from 'react'
import { treeOrder } from './collection-tree'
import { DeleteCollectionModal } from './delete-collection-modal'
import { libraryOfCollection } from './library-links'
import { MoveCollectionModal } from './move-collection-modal'
import { NamedCountTable } from './named-count-table'
import { RenameCollectionModal } from './rename-collection-modal'
import type { Collection } from './use-collections'

type Editing = { action: 'rename' | 'move' | 'delete'; collection: Collection }

/** The collections as a tree, each indented under its parent, with its model count; each name opens the library filtered by it. */
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
        rows={treeOrder(collections).map(({ collection, depth }) => ({
          key: collection.id,
          name: collection.name,
          depth,
          to: libraryOfCollection(collection.id),
          count: collection.model_count,
        }))}
        onRename={edit('rename')}
        onMove={edit('move')}
        onDelete={edit('delete')}
      />
      {editing?.action === 'rename' && <RenameCollectionModal collection={editing.collection} onClose={close} />}
      {editing?.action === 'move' && (
        <MoveCollectionModal collection={editing.collection} collections={collections} onClose={close} />
      )}
      {editing?.action === 'delete' && <DeleteCollectionModal collection={editing.collection} onClose={close} />}
    </>
  )
}
