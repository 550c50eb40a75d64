import { Select, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type Role, roles, type User, useUpdateUser } from './use-users'

/** A user's role, changed in place; the vault's refusal (the last superuser) shows under it. */
export function UserRoleSelect({ user }: { user: User }) {
  const update = useUpdateUser()
  return (
    <Stack gap={4}>
      <Select
        aria-label={`Role of ${user.username}`}
        data={roles}
        value={user.role}
        onChange={(role) => role && role !== user.role && update.mutate({ id: user.id, role: role as Role })}
        allowDeselect={false}
        disabled={update.isPending}
        size="xs"
        w={130}
      />
      {update.error && (
        <Text size="xs" c="red" role="alert" maw={260}>
          {problemMessage(update.error)}
        </Text>
      )}
    </Stack>
  )
}
