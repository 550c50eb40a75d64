import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components, paths } from '../../api/schema'
import { accessKeys } from './query-keys'

export type ApiKey = components['schemas']['ApiKey']
type NewApiKeyInput = NonNullable<paths['/api/v1/api-keys']['post']['requestBody']>['content']['application/json']

/** The signed-in user's API keys, revoked ones included. */
export function useApiKeys() {
  return useQuery({
    queryKey: accessKeys.apiKeys,
    queryFn: async () => unwrap(await api.GET('/api/v1/api-keys')).items,
  })
}

/** Creates an API key; the answer carries its value, which the vault never shows again. */
export function useCreateApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (input: NewApiKeyInput) => unwrap(await api.POST('/api/v1/api-keys', { body: input })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accessKeys.apiKeys }),
  })
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => unwrap(await api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accessKeys.apiKeys }),
  })
}

/** Changes the signed-in user's own password; this session stays, every other one ends. */
export function useChangeOwnPassword() {
  return useMutation({
    mutationFn: async (passwords: { current_password: string; new_password: string }) =>
      unwrap(await api.POST('/api/v1/me/password', { body: passwords })),
  })
}
