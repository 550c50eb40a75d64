import { Button, Group, Modal, Select, Stack, Textarea } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { type Collection, useCoverChoices, useEditCollection } from './use-collections'

/** The cover field's value for "no model chosen". */
const firstModel = ''

/**
 * Renames one collection and changes its description (Markdown) and its cover (one of its models
 * with a thumbnail, or the first); the vault's refusal (a taken name) shows under the name.
 */
export function EditCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const [name, setName] = useState(collection.name)
  const [description, setDescription] = useState(collection.description)
  const initialCover = collection.cover_chosen ? (collection.cover_model_id ?? firstModel) : firstModel
  const [cover, setCover] = useState(initialCover)
  const choices = useCoverChoices(collection.id)
  const edit = useEditCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    // Sent only when changed: the cover's model may have left the collection meanwhile.
    const coverChange = cover === initialCover ? {} : { cover_model_id: cover || null }
    edit.mutate({ id: collection.id, name, description, ...coverChange }, { onSuccess: onClose })
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
          <Select
            label="Cover"
            description="The thumbnail that stands for the collection."
            data={[
              { value: firstModel, label: 'Its first model with a picture' },
              ...(choices.data ?? []).map((model) => ({ value: model.id, label: model.name })),
            ]}
            value={cover}
            onChange={(value) => setCover(value ?? firstModel)}
            allowDeselect={false}
            searchable
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
