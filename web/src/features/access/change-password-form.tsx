import { Alert, Button, Group, PasswordInput, Stack, Text } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors, hasProblemCode, problemMessage } from '../../api/problem'
import { useChangeOwnPassword } from './use-access'

const minLength = 12

/** Current and new password; the rules are shown up front, the vault's refusal next to its field. */
export function ChangePasswordForm() {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const change = useChangeOwnPassword()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    change.mutate(
      { current_password: current, new_password: next },
      {
        onSuccess: () => {
          setCurrent('')
          setNext('')
        },
      },
    )
  }
  const fields = fieldErrors(change.error)
  const wrongCurrent = hasProblemCode(change.error, 'wrong_password')
  const tooShort = next.length > 0 && next.length < minLength
  const otherError = change.error && !wrongCurrent && !fields.new_password && !fields.current_password
  return (
    <form onSubmit={submit}>
      <Stack maw={420}>
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': 'Show or hide the password' }}
          label="Current password"
          autoComplete="current-password"
          value={current}
          onChange={(event) => {
            setCurrent(event.currentTarget.value)
            change.reset()
          }}
          error={wrongCurrent ? problemMessage(change.error) : fields.current_password}
          required
        />
        <PasswordInput
          visibilityToggleButtonProps={{ 'aria-label': 'Show or hide the password' }}
          label="New password"
          description={`At least ${minLength} characters. Changing it signs out your other sessions; API keys keep working.`}
          autoComplete="new-password"
          value={next}
          onChange={(event) => {
            setNext(event.currentTarget.value)
            change.reset()
          }}
          error={tooShort ? `${minLength - next.length} more characters needed` : fields.new_password}
          required
        />
        {otherError && (
          <Alert color="red" title="The password was not changed" role="alert">
            {problemMessage(change.error)}
          </Alert>
        )}
        {change.isSuccess && (
          <Text size="sm" c="green" role="status">
            Password changed. Your other sessions have been signed out.
          </Text>
        )}
        <Group>
          <Button type="submit" loading={change.isPending} disabled={tooShort || !current || !next}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
