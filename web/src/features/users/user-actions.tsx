import { Button, Group, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type User, useUpdateUser } from './use-users'

/** Disable or enable a user, and reset their password; the vault's refusal shows below. */
export function UserActions({ user, onResetPassword }: { user: User; onResetPassword: () => void }) {
  const update = useUpdateUser()
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs" wrap="nowrap">
        <Button
          size="xs"
          variant="light"
          color={user.disabled ? 'green' : 'red'}
          loading={update.isPending}
          aria-label={`${user.disabled ? 'Enable' : 'Disable'} ${user.username}`}
          onClick={() => update.mutate({ id: user.id, disabled: !user.disabled })}
        >
          {user.disabled ? 'Enable' : 'Disable'}
        </Button>
        <Button size="xs" variant="default" aria-label={`Reset password of ${user.username}`} onClick={onResetPassword}>
          Reset password
        </Button>
      </Group>
      {update.error && (
        <Text size="xs" c="red" role="alert">
          {problemMessage(update.error)}
        </Text>
      )}
    </Stack>
  )
}
