import { Button, Group, Modal, Stack, Textarea } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { type Collection, useEditCollection } from './use-collections'

/** Renames one collection and changes its description (Markdown); the vault's refusal (a taken name) shows under the name. */
export function EditCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const [name, setName] = useState(collection.name)
  const [description, setDescription] = useState(collection.description)
  const edit = useEditCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    edit.mutate({ id: collection.id, name, description }, { onSuccess: onClose })
  }
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Edit “${collection.name}”`}>
      <form onSubmit={submit}>
        <Stack>
          <NameInput label="Name" value={name} onChange={setName} mutation={edit} data-autofocus />
          <Textarea
            label="Description"
            description="Markdown: **bold**, lists, links."
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
            maxLength={10_000}
            autosize
            minRows={3}
            maxRows={12}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={edit.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
