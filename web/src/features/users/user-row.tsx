import { Badge, Button, Group, Select, Table, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type Role, roles, type User, useUpdateUser } from './use-users'

/** One user: role (changed in place), state, and the disable or enable and reset-password buttons. */
export function UserRow({ user, isMe, onResetPassword }: { user: User; isMe: boolean; onResetPassword: () => void }) {
  const update = useUpdateUser()
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" fw={500}>
          {user.username}
          {isMe && ' (you)'}
        </Text>
        {update.error && (
          <Text size="xs" c="red" role="alert">
            {problemMessage(update.error)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
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
      </Table.Td>
      <Table.Td>
        <Badge color={user.disabled ? 'gray' : 'green'} variant="light">
          {user.disabled ? 'Disabled' : 'Active'}
        </Badge>
      </Table.Td>
      <Table.Td>
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
          <Button
            size="xs"
            variant="default"
            aria-label={`Reset password of ${user.username}`}
            onClick={onResetPassword}
          >
            Reset password
          </Button>
        </Group>
      </Table.Td>
    </Table.Tr>
  )
}
