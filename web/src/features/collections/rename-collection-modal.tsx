import { Button, Group, Modal, Stack, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import classes from './error-contrast.module.css'
import { type Collection, nameError, useRenameCollection } from './use-collections'

/** Renames one collection; the vault's refusal (a taken name) shows under the name. */
export function RenameCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const [name, setName] = useState(collection.name)
  const rename = useRenameCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    rename.mutate({ id: collection.id, name }, { onSuccess: onClose })
  }
  return (
    <Modal
      opened
      onClose={onClose}
      classNames={{ content: classes.readable }}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Rename “${collection.name}”`}
    >
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            value={name}
            onChange={(event) => {
              setName(event.currentTarget.value)
              if (rename.error) rename.reset()
            }}
            error={nameError(rename.error)}
            required
            maxLength={100}
            data-autofocus
          />
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
