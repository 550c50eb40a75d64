import { Button, Group, TextInput } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import classes from './error-contrast.module.css'
import { nameError, useCreateCollection } from './use-collections'

/** A name and a button: creates a collection; the vault's refusal shows under the name. */
export function CreateCollectionForm() {
  const [name, setName] = useState('')
  const create = useCreateCollection()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(name, { onSuccess: () => setName('') })
  }
  return (
    <form onSubmit={submit} className={classes.readable}>
      <Group align="flex-start" gap="sm">
        <TextInput
          label="New collection"
          placeholder="Calibration"
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value)
            if (create.error) create.reset()
          }}
          error={nameError(create.error)}
          required
          maxLength={100}
          style={{ flex: '1 1 14rem' }}
        />
        <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} aria-hidden />} mt={25}>
          Create
        </Button>
      </Group>
    </form>
  )
}
