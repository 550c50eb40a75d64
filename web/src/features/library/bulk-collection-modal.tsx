import { Select } from '@mantine/core'
import { useState } from 'react'
import { BulkFormModal } from './bulk-form-modal'

/** Asks which collection to put the selected models in (or take them out of). */
export function BulkCollectionModal(props: {
  opened: boolean
  removing: boolean
  selectedLabel: string
  collections: { id: string; name: string }[]
  error: unknown
  pending: boolean
  onApply: (collectionId: string) => void
  onClose: () => void
}) {
  const [collection, setCollection] = useState<string | null>(null)
  return (
    <BulkFormModal
      opened={props.opened}
      title={props.removing ? 'Remove from collection' : 'Add to collection'}
      description={
        props.removing
          ? `Take ${props.selectedLabel} out of a collection; they stay in the library.`
          : `Put ${props.selectedLabel} in a collection.`
      }
      ready={collection !== null}
      error={props.error}
      pending={props.pending}
      onSubmit={() => collection && props.onApply(collection)}
      onClose={props.onClose}
    >
      <Select
        label="Collection"
        data={props.collections.map((item) => ({ value: item.id, label: item.name }))}
        value={collection}
        onChange={setCollection}
        searchable
        nothingFoundMessage="No collection has that name"
      />
    </BulkFormModal>
  )
}
