import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { endSession, sessionStore, startSession } from '../../api/session'
import { authKeys } from './query-keys'

/** Whether this tab is signed in, re-rendering when that changes (here or in another tab). */
export function useSession() {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.getState)
}

/** The signed-in user and session (`GET /api/v1/me`). */
export function useMe() {
  // While a stored session is restored the call waits for it in the API client.
  const signedOut = useSession().status === 'signed-out'
  return useQuery({
    queryKey: authKeys.me,
    queryFn: async () => unwrap(await api.GET('/api/v1/me')),
    enabled: !signedOut,
    staleTime: 60_000,
  })
}

/** Password sign-in; on success the session starts and `useMe` loads. */
export function useSignIn() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (credentials: { username: string; password: string }) =>
      unwrap(await api.POST('/api/v1/auth/login', { body: credentials })),
    onSuccess: (tokens) => {
      queryClient.clear()
      startSession(tokens)
    },
  })
}

/** Changes the signed-in user's password; this session stays signed in, every other one ends. */
export function useChangePassword() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (passwords: { current_password: string; new_password: string }) =>
      unwrap(await api.POST('/api/v1/me/password', { body: passwords })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authKeys.me }),
  })
}

/** Ends the session on the vault (best effort: this tab forgets it either way) and drops cached data. */
export function useSignOut() {
  const queryClient = useQueryClient()
  return async () => {
    await api.POST('/api/v1/auth/logout').catch(() => undefined)
    endSession('signed-out')
    queryClient.clear()
  }
}
