import { Text } from '@mantine/core'
import { useState } from 'react'
import { treeOrder } from '../../api/collection-tree'
import { MarkdownText } from '../../ui/markdown-text'
import { CollectionCover } from './collection-cover'
import { DeleteCollectionModal } from './delete-collection-modal'
import { EditCollectionModal } from './edit-collection-modal'
import { libraryOfCollection } from './library-links'
import { MoveCollectionModal } from './move-collection-modal'
import { NamedCountTable } from './named-count-table'
import type { Collection } from './use-collections'

type Editing = { action: 'edit' | 'move' | 'delete'; collection: Collection }

/** The collections as a tree, each indented under its parent, with its model count and description; each name opens the library filtered by it. */
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
          image: <CollectionCover modelId={collection.cover_model_id} name={collection.name} />,
          details: collection.description ? (
            <Text component="div" size="sm" c="dimmed" lineClamp={3}>
              <MarkdownText>{collection.description}</MarkdownText>
            </Text>
          ) : undefined,
        }))}
        onRename={edit('edit')}
        renameVerb="Edit"
        onMove={edit('move')}
        onDelete={edit('delete')}
      />
      {editing?.action === 'edit' && <EditCollectionModal collection={editing.collection} onClose={close} />}
      {editing?.action === 'move' && (
        <MoveCollectionModal collection={editing.collection} collections={collections} onClose={close} />
      )}
      {editing?.action === 'delete' && <DeleteCollectionModal collection={editing.collection} onClose={close} />}
    </>
  )
}
