import { Alert, Loader, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { CreateUserForm } from './create-user-form'
import { ResetPasswordModal } from './reset-password-modal'
import { type User, useMyUserId, useUsers } from './use-users'
import { UserRow } from './user-row'

/** Users (superusers): list, create, change role, disable or enable, reset password. */
export function UsersPage() {
  const users = useUsers()
  const myId = useMyUserId()
  const [resetting, setResetting] = useState<User>()
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
        {users.data && (
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Users" verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Username</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {users.data.map((user) => (
                  <UserRow
                    key={user.id}
                    user={user}
                    isMe={user.id === myId}
                    onResetPassword={() => setResetting(user)}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
      {resetting && <ResetPasswordModal user={resetting} onClose={() => setResetting(undefined)} />}
    </Stack>
  )
}
