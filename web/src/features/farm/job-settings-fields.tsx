import { Checkbox, NumberInput } from '@mantine/core'

/** What a job's owner can set when queuing it and change while it has not ended. */
export interface JobSettings {
  priority: string | number
  maxAttempts: string | number
  acceptWarnings: boolean
}

/** A number field's value as the API takes it: left empty, the API's default (or the job's value) applies. */
const numberOrUnset = (value: string | number) => (typeof value === 'number' ? value : undefined)

/** The settings as the API's fields. */
export const settingsBody = (settings: JobSettings) => ({
  priority: numberOrUnset(settings.priority),
  max_attempts: numberOrUnset(settings.maxAttempts),
  accept_warnings: settings.acceptWarnings,
})

/** The settings' fields that show the vault's refusals next to them. */
export const settingsFields = ['priority', 'max_attempts']

/** Priority, max attempts and "Accept warnings", each with the vault's refusal of it. */
export function JobSettingsFields(props: {
  value: JobSettings
  onChange: (value: JobSettings) => void
  errors: Record<string, string>
}) {
  const { value, onChange, errors } = props
  return (
    <>
      <NumberInput
        label="Priority"
        description="Higher goes first, from −100 to 100."
        value={value.priority}
        onChange={(priority) => onChange({ ...value, priority })}
        allowDecimal={false}
        error={errors.priority}
      />
      <NumberInput
        label="Max attempts"
        description="Failed prints after which the job fails instead of being queued again."
        value={value.maxAttempts}
        onChange={(maxAttempts) => onChange({ ...value, maxAttempts })}
        allowDecimal={false}
        error={errors.max_attempts}
      />
      <Checkbox
        label="Accept warnings"
        description="Send it even where a compatibility rule could not be checked (a value the file or the printer does not state)."
        checked={value.acceptWarnings}
        onChange={(event) => onChange({ ...value, acceptWarnings: event.currentTarget.checked })}
      />
    </>
  )
}
