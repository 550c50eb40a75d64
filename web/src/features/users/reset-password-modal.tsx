import { Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { passwordMinLength, type User, useResetPassword } from './use-users'

/** Sets a new password for a user, and says that their sessions end. */
export function ResetPasswordModal({ user, onClose }: { user: User; onClose: () => void }) {
  const [password, setPassword] = useState('')
  const reset = useResetPassword()
  const shortBy = password.length > 0 && password.length < passwordMinLength
  const submit = (event: FormEvent) => {
    event.preventDefault()
    reset.mutate(
      { id: user.id, password },
      {
        onSuccess: () => {
          notifications.show({
            color: 'green',
            closeButtonProps: { 'aria-label': 'Dismiss' },
            message: `${user.username}'s password was reset.`,
          })
          onClose()
        },
      },
    )
  }
  const error = shortBy
    ? `${passwordMinLength - password.length} more characters needed`
    : reset.error
      ? (fieldErrors(reset.error).password ?? problemMessage(reset.error))
      : undefined
  return (
    <Modal
      opened
      onClose={onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Reset ${user.username}'s password`}
    >
      <form onSubmit={submit}>
        <Stack>
          <Text size="sm">
            Every session of {user.username} ends and they sign in with the new password; their API keys keep working.
          </Text>
          <PasswordInput
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide the password' }}
            label="New password"
            description={`At least ${passwordMinLength} characters`}
            autoComplete="new-password"
            value={password}
            onChange={(event) => {
              setPassword(event.currentTarget.value)
              reset.reset()
            }}
            error={error}
            required
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={reset.isPending} disabled={shortBy || !password}>
              Reset password
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
