import { useQuery } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { api } from './client'
import { unwrap } from './problem'
import { sessionStore } from './session'

/** The one cache key of `GET /api/v1/me`, which every feature reads through `useMe`. */
export const meKey = ['me'] as const

/** Whether this tab is signed in, re-rendering when that changes (here or in another tab). */
export function useSession() {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.getState)
}

/** The signed-in user and session (`GET /api/v1/me`), shared by every feature that asks. */
export function useMe() {
  // While a stored session is restored the call waits for it in the API client.
  const signedOut = useSession().status === 'signed-out'
  return useQuery({
    queryKey: meKey,
    queryFn: async () => unwrap(await api.GET('/api/v1/me')),
    enabled: !signedOut,
    staleTime: 60_000,
  })
}

/** Whether the signed-in user is an admin or the superuser: printers, presets and users are theirs to change. */
export function useIsAdmin(): boolean {
  const role = useMe().data?.user.role
  return role === 'admin' || role === 'superuser'
}
