import { Button, Group } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { useCreateCollection } from './use-collections'

/** A name and a button: creates a collection; the vault's refusal shows under the name. */
export function CreateCollectionForm() {
  const [name, setName] = useState('')
  const create = useCreateCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(name, { onSuccess: () => setName('') })
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
        <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} aria-hidden />} mt={25}>
          Create
        </Button>
      </Group>
    </form>
  )
}
