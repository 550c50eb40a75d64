import {
  ActionIcon,
  Autocomplete,
  type AutocompleteProps,
  Button,
  Group,
  Stack,
  Textarea,
  TextInput,
  Tooltip,
} from '@mantine/core'
import { IconPencil } from '@tabler/icons-react'
import { type FormEvent, type KeyboardEvent, type ReactNode, useState } from 'react'

/**
 * Shows `children` with an edit button; editing swaps in a text field with Save and Cancel
 * (Enter saves a single line, Escape cancels). `onSave` resolves when saved and rejects with the
 * readable reason, shown under the field. With `suggestions` the single line offers them as it is
 * typed, and any other text is still taken.
 */
export function InlineTextEdit(props: {
  label: string
  value: string
  multiline?: boolean
  suggestions?: Pick<AutocompleteProps, 'data' | 'filter' | 'limit' | 'renderOption'>
  onSave: (value: string) => Promise<unknown>
  errorOf: (error: unknown) => string
  children: ReactNode
}) {
  const [draft, setDraft] = useState<string>()
  const [saving, setSaving] = useState(false)
  const [error, setError] = useState<string>()

  const cancel = () => {
    setDraft(undefined)
    setError(undefined)
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (draft === undefined) return
    setSaving(true)
    try {
      await props.onSave(draft)
      cancel()
    } catch (failure) {
      setError(props.errorOf(failure))
    } finally {
      setSaving(false)
    }
  }
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') cancel()
  }

  if (draft === undefined) {
    return (
      <Group gap="xs" wrap="nowrap" align="flex-start">
        {props.children}
        <Tooltip label={`Edit ${props.label.toLowerCase()}`}>
          <ActionIcon
            variant="subtle"
            aria-label={`Edit ${props.label.toLowerCase()}`}
            onClick={() => setDraft(props.value)}
            mt={4}
          >
            <IconPencil size={18} aria-hidden />
          </ActionIcon>
        </Tooltip>
      </Group>
    )
  }

  const field = {
    label: props.label,
    value: draft,
    error,
    onKeyDown,
    autoFocus: true,
  }
  const onChange = (event: { currentTarget: { value: string } }) => setDraft(event.currentTarget.value)
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        {props.multiline ? (
          <Textarea {...field} onChange={onChange} autosize minRows={3} maxRows={12} />
        ) : props.suggestions ? (
          <Autocomplete {...field} {...props.suggestions} onChange={setDraft} />
        ) : (
          <TextInput {...field} onChange={onChange} />
        )}
        <Group gap="xs">
          <Button type="submit" size="xs" loading={saving}>
            Save {props.label.toLowerCase()}
          </Button>
          <Button size="xs" variant="default" onClick={cancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
