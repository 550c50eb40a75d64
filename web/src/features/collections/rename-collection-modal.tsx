import { Button, Group, Modal, Stack } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { type Collection, useRenameCollection } from './use-collections'

/** Renames one collection; the vault's refusal (a taken name) shows under the name. */
export function RenameCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const [name, setName] = useState(collection.name)
  const rename = useRenameCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    rename.mutate({ id: collection.id, name }, { onSuccess: onClose })
  }
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Rename “${collection.name}”`}>
      <form onSubmit={submit}>
        <Stack>
          <NameInput label="Name" value={name} onChange={setName} mutation={rename} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={rename.isPending}>
              Rename
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
