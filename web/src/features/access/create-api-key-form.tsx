import { Button, Group, TextInput } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { NewKeyModal } from './new-key-modal'
import { useCreateApiKey } from './use-access'

/** A name and a button: creates an API key, then shows its value once. */
export function CreateApiKeyForm() {
  const [name, setName] = useState('')
  const create = useCreateApiKey()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(name.trim(), { onSuccess: () => setName('') })
  }
  const error = create.error ? (fieldErrors(create.error).name ?? problemMessage(create.error)) : undefined
  return (
    <form onSubmit={submit}>
      <Group align="flex-start" gap="sm">
        <TextInput
          label="New key's name"
          description="What will use it, e.g. PrusaSlicer hook"
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value)
            if (create.error) create.reset()
          }}
          error={error}
          style={{ flex: '1 1 14rem' }}
        />
        <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} aria-hidden />} mt={47}>
          Create key
        </Button>
      </Group>
      {create.data && <NewKeyModal apiKey={create.data} onClose={() => create.reset()} />}
    </form>
  )
}
