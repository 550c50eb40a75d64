import { TextInput, type TextInputProps } from '@mantine/core'
import { nameError } from './use-collections'

/**
 * A collection's or a tag's name field: typing clears the vault's last refusal (`mutation.error`, shown under
 * the field) so the message always belongs to the name on screen.
 */
export function NameInput({
  value,
  onChange,
  mutation,
  maxLength = 100,
  ...props
}: Omit<TextInputProps, 'value' | 'onChange' | 'error'> & {
  maxLength?: number
  value: string
  onChange: (name: string) => void
  mutation: { error: Error | null; reset: () => void }
}) {
  return (
    <TextInput
      {...props}
      value={value}
      onChange={(event) => {
        onChange(event.currentTarget.value)
        if (mutation.error) mutation.reset()
      }}
      error={nameError(mutation.error)}
      required
      maxLength={maxLength}
    />
  )
}
