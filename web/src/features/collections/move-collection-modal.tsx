import { Button, Modal, Stack } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { DialogActions } from '../../ui/dialog-actions'
import { ParentSelect } from './parent-select'
import { type Collection, useMoveCollection } from './use-collections'

/** Moves one collection, with everything inside it, into another or to the top level. */
export function MoveCollectionModal({
  collection,
  collections,
  onClose,
}: {
  collection: Collection
  collections: Collection[]
  onClose: () => void
}) {
  const [parentId, setParentId] = useState(collection.parent_id)
  const move = useMoveCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    move.mutate({ id: collection.id, parentId }, { onSuccess: onClose })
  }
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Move “${collection.name}”`}>
      <form onSubmit={submit}>
        <Stack>
          <ParentSelect
            label="Inside"
            description="Empty: at the top level. What is inside it moves along."
            collections={collections}
            moving={collection.id}
            value={parentId}
            onChange={setParentId}
          />
          <DialogActions error={move.error} onCancel={onClose}>
            <Button type="submit" loading={move.isPending}>
              Move
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  )
}
