import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { Navigate, useSearchParams } from 'react-router'
import { fieldErrors, problemMessage } from '../../api/problem'
import { useSession } from '../../api/use-me'
import { useSignIn } from './session-hooks'

/** Only paths inside the app: `next` must not send anyone to another site. */
const safeNext = (next: string | null) => (next?.startsWith('/') && !next.startsWith('//') ? next : '/')

/** Password sign-in. Lands on `?next=` (the page that asked for it) or the overview. */
export function SignInPage() {
  const session = useSession()
  const [params] = useSearchParams()
  const signIn = useSignIn()
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')

  if (session.status === 'signed-in') return <Navigate to={safeNext(params.get('next'))} replace />

  const submit = (event: FormEvent) => {
    event.preventDefault()
    signIn.mutate({ username, password })
  }
  const fields = fieldErrors(signIn.error)
  const notice =
    session.status === 'signed-out' && session.reason === 'expired'
      ? 'Your session has ended. Sign in again to continue.'
      : session.status === 'signed-out' && session.reason === 'signed-out'
        ? 'You have signed out.'
        : undefined

  return (
    <Center mih="100vh" p="md">
      <Paper component="main" withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={submit} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Sign in to model-vault
            </Title>
            {notice && !signIn.error && (
              <Alert variant="light" role="status">
                {notice}
              </Alert>
            )}
            <TextInput
              label="Username"
              autoComplete="username"
              required
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
              error={fields.username}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={fields.password}
            />
            {signIn.error && (
              <Alert color="red" role="alert" title="Not signed in">
                {problemMessage(signIn.error)}
              </Alert>
            )}
            <Button type="submit" loading={signIn.isPending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  )
}
