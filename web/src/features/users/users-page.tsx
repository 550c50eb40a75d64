import { Alert, Badge, Loader, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { useMe } from '../../api/use-me'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { CreateUserForm } from './create-user-form'
import { ResetPasswordModal } from './reset-password-modal'
import { type User, useUsers } from './use-users'
import { UserActions } from './user-actions'
import { UserRoleSelect } from './user-role-select'

/** Users (superusers): list, create, change role, disable or enable, reset password. */
export function UsersPage() {
  const users = useUsers()
  const myId = useMe().data?.user.id
  const [resetting, setResetting] = useState<User>()
  const columns: DataColumn<User>[] = [
    {
      key: 'username',
      header: 'Username',
      cell: (user) => (
        <Text size="sm" fw={500}>
          {user.username}
          {user.id === myId && ' (you)'}
        </Text>
      ),
    },
    { key: 'role', header: 'Role', cell: (user) => <UserRoleSelect user={user} /> },
    {
      key: 'state',
      header: 'State',
      cell: (user) => (
        <Badge color={user.disabled ? 'gray' : 'green'} variant="light">
          {user.disabled ? 'Disabled' : 'Active'}
        </Badge>
      ),
    },
    {
      key: 'actions',
      header: null,
      cell: (user) => <UserActions user={user} onResetPassword={() => setResetting(user)} />,
    },
  ]
  return (
    <Stack gap="xl">
      <Title order={1}>Users</Title>
      <Stack component="section" aria-labelledby="new-user-heading">
        <Title order={2} size="h3" id="new-user-heading">
          New user
        </Title>
        <Text size="sm" c="dimmed">
          Users browse, upload and print; admins also manage printers and backups; superusers also manage users.
        </Text>
        <CreateUserForm />
      </Stack>
      <Stack component="section" aria-labelledby="users-heading">
        <Title order={2} size="h3" id="users-heading">
          Everyone
        </Title>
        {users.isPending && <Loader size="sm" aria-label="Loading users" />}
        {users.error && (
          <Alert color="red" title="Cannot load the users">
            {problemMessage(users.error)}
          </Alert>
        )}
        {users.data && <DataTable label="Users" columns={columns} rows={users.data} rowKey={(user) => user.id} />}
      </Stack>
      {resetting && <ResetPasswordModal user={resetting} onClose={() => setResetting(undefined)} />}
    </Stack>
  )
}
