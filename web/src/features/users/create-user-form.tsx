import { Alert, Button, Group, PasswordInput, Select, Stack, TextInput } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconUserPlus } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { ApiError, fieldErrors, problemMessage } from '../../api/problem'
import { passwordMinLength, type Role, roles, useCreateUser } from './use-users'

/** Username, password and role: creates a user; refusals show next to their field. */
export function CreateUserForm() {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [role, setRole] = useState<Role>('user')
  const create = useCreateUser()
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(
      { username: username.trim(), password, role },
      {
        onSuccess: (user) => {
          notifications.show({
            color: 'green',
            closeButtonProps: { 'aria-label': 'Dismiss' },
            message: `Created ${user.username}.`,
          })
          setUsername('')
          setPassword('')
          setRole('user')
        },
      },
    )
  }
  const fields = fieldErrors(create.error)
  const taken = create.error instanceof ApiError && create.error.status === 409
  const shortBy = password.length > 0 && password.length < passwordMinLength
  const other = create.error && !taken && !fields.username && !fields.password && !fields.role
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value)
    if (create.error) create.reset()
  }
  return (
    <form onSubmit={submit}>
      <Stack gap="sm">
        <Group align="flex-start" gap="sm">
          <TextInput
            label="Username"
            description="Letters, digits, . - _"
            autoComplete="off"
            value={username}
            onChange={(event) => edit(setUsername)(event.currentTarget.value)}
            error={taken ? problemMessage(create.error) : fields.username}
            required
            style={{ flex: '1 1 12rem' }}
          />
          <PasswordInput
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide the password' }}
            label="Password"
            description={`At least ${passwordMinLength} characters`}
            autoComplete="new-password"
            value={password}
            onChange={(event) => edit(setPassword)(event.currentTarget.value)}
            error={shortBy ? `${passwordMinLength - password.length} more characters needed` : fields.password}
            required
            style={{ flex: '1 1 12rem' }}
          />
          <Select
            label="Role"
            description="What they may do"
            data={roles}
            value={role}
            onChange={(value) => value && setRole(value as Role)}
            allowDeselect={false}
            error={fields.role}
            style={{ flex: '0 1 10rem' }}
          />
        </Group>
        {other && (
          <Alert color="red" title="The user was not created" role="alert">
            {problemMessage(create.error)}
          </Alert>
        )}
        <Group>
          <Button
            type="submit"
            loading={create.isPending}
            disabled={shortBy}
            leftSection={<IconUserPlus size={16} aria-hidden />}
          >
            Create user
          </Button>
        </Group>
      </Stack>
    </form>
  )
}
