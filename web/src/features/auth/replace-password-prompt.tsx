import { Alert, Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { type FormEvent, useState } from 'react'
import { fieldErrors, hasProblemCode, problemMessage } from '../../api/problem'
import { useMe } from '../../api/use-me'
import { useChangePassword } from './session-hooks'

/**
 * Asks a user who signed in with a password the vault generated (printed once in the log at first
 * start, or by the CLI) to choose their own. "Later" puts it off until the next sign-in.
 */
export function ReplacePasswordPrompt() {
  const me = useMe()
  const change = useChangePassword()
  const [later, setLater] = useState(false)
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')

  const submit = (event: FormEvent) => {
    event.preventDefault()
    change.mutate(
      { current_password: current, new_password: next },
      { onSuccess: () => notifications.show({ color: 'green', message: 'Your password is changed.' }) },
    )
  }
  const fields = fieldErrors(change.error)
  const wrongCurrent = hasProblemCode(change.error, 'wrong_password')
  const message = change.error ? problemMessage(change.error) : undefined

  return (
    <Modal
      opened={me.data?.password_generated === true && !later}
      onClose={() => setLater(true)}
      title="Replace the generated password"
      closeButtonProps={{ 'aria-label': 'Later' }}
      centered
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">
            You signed in with a password the vault generated. Choose your own, so that the one in the log no longer
            opens this account.
          </Text>
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(event) => setCurrent(event.currentTarget.value)}
            error={wrongCurrent ? message : fields.current_password}
          />
          <PasswordInput
            label="New password"
            description="At least 12 characters."
            autoComplete="new-password"
            required
            value={next}
            onChange={(event) => setNext(event.currentTarget.value)}
            error={fields.new_password}
          />
          {message && !wrongCurrent && Object.keys(fields).length === 0 && (
            <Alert color="red" role="alert">
              {message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setLater(true)}>
              Later
            </Button>
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
