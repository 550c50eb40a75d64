import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { modelKeys } from './query-keys'
import type { UpdateModel } from './types'

/** A model with its files, tags and collections (`GET /api/v1/models/{id}`). */
export function useModel(id: string) {
  return useQuery({
    queryKey: modelKeys.model(id),
    queryFn: async () => unwrap(await api.GET('/api/v1/models/{id}', { params: { path: { id } } })),
  })
}

/** Changes name, description or tags; the answer is the model as changed. */
export function useUpdateModel(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (change: UpdateModel) =>
      unwrap(await api.PATCH('/api/v1/models/{id}', { params: { path: { id } }, body: change })),
    onSuccess: (model) => {
      queryClient.setQueryData(modelKeys.model(id), model)
      // Tag names and library listings change with it.
      queryClient.invalidateQueries({ queryKey: modelKeys.tags })
      queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'model' })
    },
  })
}

/** Deletes the model and its files. */
export function useDeleteModel(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/models/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: modelKeys.model(id) })
      queryClient.invalidateQueries()
    },
  })
}
