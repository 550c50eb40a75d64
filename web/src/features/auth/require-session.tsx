import { Alert, Button, Center, Stack } from '@mantine/core'
import { type ReactNode, useCallback, useEffect, useState } from 'react'
import { Navigate, useLocation } from 'react-router'
import { refreshSession, sessionStore } from '../../api/session'
import { useSession } from '../../api/use-me'

/**
 * Shows `children` to a signed-in user, and to one whose stored session (after a reload) is being
 * restored: the page draws while the refresh is under way and its calls wait for the new access
 * token in the API client, so the first cards do not wait for two round trips in a row. A
 * signed-out visitor (or a restore the vault refused) goes to the sign-in page, which brings them
 * back here afterwards unless they signed out themselves; a vault that cannot be reached keeps
 * the session and offers to try again.
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

  if (session.status === 'signed-in' || (session.status === 'restoring' && !unreachable)) return children
  if (session.status === 'signed-out') {
    const back =
      session.reason === 'signed-out' ? '' : `?next=${encodeURIComponent(location.pathname + location.search)}`
    return <Navigate to={`/sign-in${back}`} replace />
  }
  return (
    <Center h="100vh">
      <Stack align="center">
        <Alert color="red" title="Cannot reach the vault">
          Your session is kept; try again when the vault answers.
        </Alert>
        <Button onClick={restore}>Try again</Button>
      </Stack>
    </Center>
  )
}
