import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { endSession, startSession } from '../../api/session'
import { meKey } from '../../api/use-me'

/** Password sign-in; on success the session starts and `useMe` (api/use-me) loads. */
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
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meKey }),
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
