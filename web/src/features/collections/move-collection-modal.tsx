import { Alert, Button, Group, Modal, Stack } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { problemMessage } from '../../api/problem'
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
            data-autofocus
          />
          {move.error && <Alert color="red">{problemMessage(move.error)}</Alert>}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={move.isPending}>
              Move
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
