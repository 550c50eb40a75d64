import { Alert, Button, Center, Loader, Stack } from '@mantine/core'
import { type ReactNode, useCallback, useEffect, useState } from 'react'
import { Navigate, useLocation } from 'react-router'
import { refreshSession, sessionStore } from '../../api/session'
import { useSession } from './session-hooks'

/**
 * Shows `children` to a signed-in user. A stored session (after a reload) is restored first; a
 * signed-out visitor goes to the sign-in page, which brings them back here afterwards unless they
 * signed out themselves.
 */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession()
  const location = useLocation()
  const [unreachable, setUnreachable] = useState(false)

  const restore = useCallback(() => {
    setUnreachable(false)
    refreshSession().then((ok) => {
      // Still restoring after a failed refresh: the vault could not be reached; the session may be fine.
      if (!ok && sessionStore.getState().status === 'restoring') setUnreachable(true)
    })
  }, [])

  useEffect(() => {
    if (session.status === 'restoring') restore()
  }, [session.status, restore])

  if (session.status === 'signed-in') return children
  if (session.status === 'signed-out') {
    const back =
      session.reason === 'signed-out' ? '' : `?next=${encodeURIComponent(location.pathname + location.search)}`
    return <Navigate to={`/sign-in${back}`} replace />
  }
  return (
    <Center h="100vh">
      {unreachable ? (
        <Stack align="center">
          <Alert color="red" title="Cannot reach the vault">
            Your session is kept; try again when the vault answers.
          </Alert>
          <Button onClick={restore}>Try again</Button>
        </Stack>
      ) : (
        <Loader aria-label="Restoring your session" />
      )}
    </Center>
  )
}
