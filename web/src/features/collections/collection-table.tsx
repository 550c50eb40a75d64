import { ActionIcon, Anchor, Group, Table, VisuallyHidden } from '@mantine/core'
import { IconPencil, IconTrash } from '@tabler/icons-react'
import { useState } from 'react'
import { Link } from 'react-router'
import { DeleteCollectionModal } from './delete-collection-modal'
import { libraryOfCollection } from './library-links'
import { RenameCollectionModal } from './rename-collection-modal'
import type { Collection } from './use-collections'

type Editing = { action: 'rename' | 'delete'; collection: Collection }

/** The collections with their model counts; each name opens the library filtered by it. */
export function CollectionTable({ collections }: { collections: Collection[] }) {
  const [editing, setEditing] = useState<Editing>()
  const close = () => setEditing(undefined)
  return (
    <>
      <Table highlightOnHover verticalSpacing="xs" aria-label="Collections">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th ta="right">Models</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {collections.map((collection) => (
            <Table.Tr key={collection.id}>
              <Table.Td style={{ wordBreak: 'break-word' }}>
                <Anchor component={Link} to={libraryOfCollection(collection.id)}>
                  {collection.name}
                </Anchor>
              </Table.Td>
              <Table.Td ta="right">{collection.model_count}</Table.Td>
              <Table.Td>
                <Group gap={4} justify="flex-end" wrap="nowrap">
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label={`Rename ${collection.name}`}
                    onClick={() => setEditing({ action: 'rename', collection })}
                  >
                    <IconPencil size={16} aria-hidden />
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Delete ${collection.name}`}
                    onClick={() => setEditing({ action: 'delete', collection })}
                  >
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {editing?.action === 'rename' && <RenameCollectionModal collection={editing.collection} onClose={close} />}
      {editing?.action === 'delete' && <DeleteCollectionModal collection={editing.collection} onClose={close} />}
    </>
  )
}
