import { Button, Group, TextInput } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { ChoiceSelect } from './choice-select'
import { expiryChoices, expiryFromNow, neverExpires } from './expiry-choices'
import { NewKeyModal } from './new-key-modal'
import { scopePresets, uploadOnly } from './scope-presets'
import { useCreateApiKey } from './use-access'

/** A name, what the key may do and when it expires: creates an API key, then shows its value once. */
export function CreateApiKeyForm() {
  const [name, setName] = useState('')
  const [preset, setPreset] = useState(uploadOnly)
  const [expiry, setExpiry] = useState(neverExpires)
  const create = useCreateApiKey()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(
      { name: name.trim(), scopes: preset.scopes, expires_at: expiryFromNow(expiry.days) },
      { onSuccess: () => setName('') },
    )
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
        <ChoiceSelect
          label="It may"
          description="Give it only what its job needs"
          choices={scopePresets}
          value={preset}
          onChange={setPreset}
          style={{ flex: '1 1 16rem' }}
        />
        <ChoiceSelect
          label="Expires"
          description="After this it stops working"
          choices={expiryChoices}
          value={expiry}
          onChange={setExpiry}
          style={{ flex: '0 1 9rem' }}
        />
        <Button type="submit" loading={create.isPending} leftSection={<IconPlus size={16} aria-hidden />} mt={47}>
          Create key
        </Button>
      </Group>
      {create.data && <NewKeyModal apiKey={create.data} onClose={() => create.reset()} />}
    </form>
  )
}
