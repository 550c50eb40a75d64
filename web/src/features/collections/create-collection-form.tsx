import { Button, Group } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { ParentSelect } from './parent-select'
import { type Collection, useCreateCollection } from './use-collections'

/**
 * A name, where to put it (the top level, or inside a collection) and a button: creates a collection;
 * the vault's refusal shows under the name.
 */
export function CreateCollectionForm({ collections }: { collections: Collection[] }) {
  const [name, setName] = useState('')
  const [parentId, setParentId] = useState<string | null>(null)
  const create = useCreateCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ name, parentId }, { onSuccess: () => setName('') })
  }
  return (
    <form onSubmit={submit}>
      <Group align="flex-start" gap="sm">
        <NameInput
          label="New collection"
          placeholder="Calibration"
          value={name}
          onChange={setName}
          mutation={create}
          style={{ flex: '1 1 14rem' }}
        />
        {collections.length > 0 && (
          <ParentSelect
            label="Inside"
            collections={collections}
            value={parentId}
            onChange={setParentId}
            style={{ flex: '1 1 14rem' }}
          />
        )}
        <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} aria-hidden />} mt={25}>
          Create
        </Button>
      </Group>
    </form>
  )
}
