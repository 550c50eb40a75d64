import { PasswordInput, TextInput } from '@mantine/core'
import type { CredentialField } from './provider-credentials'

interface CredentialInputsProps {
  fields: CredentialField[]
  values: Record<string, string>
  onChange: (name: string, value: string) => void
  /** Marks the fields the provider needs (not when stored credentials would be kept). */
  markRequired: boolean
  disabled: boolean
  /** Field errors by `credentials.<name>`, as the vault's 422 names them. */
  errors: Record<string, string | undefined>
}

/** One input per credential field of the chosen provider, as its schema describes it. */
export function CredentialInputs({ fields, values, onChange, markRequired, disabled, errors }: CredentialInputsProps) {
  return fields.map((field) => {
    const Input = field.secret ? PasswordInput : TextInput
    return (
      <Input
        key={field.name}
        label={field.title}
        description={field.description}
        withAsterisk={markRequired && field.required}
        // Not the browser's saved sign-in: these belong to the printer.
        autoComplete={field.secret ? 'new-password' : 'off'}
        value={values[field.name] ?? ''}
        onChange={(event) => onChange(field.name, event.currentTarget.value)}
        disabled={disabled}
        error={errors[`credentials.${field.name}`]}
      />
    )
  })
}
