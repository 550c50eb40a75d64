import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { thumbnailKeys } from '../../api/thumbnails'
import { modelKeys } from './query-keys'
import type { UpdateModel } from './types'

/**
 * A model with its files, tags and collections (`GET /api/v1/models/{id}`). Asked again every 2 s
 * while its files wait for the background analysis (`analysing_files`), so the thumbnails and
 * previews show once rendered.
 */
export function useModel(id: string) {
  return useQuery({
    queryKey: modelKeys.model(id),
    queryFn: async () => unwrap(await api.GET('/api/v1/models/{id}', { params: { path: { id } } })),
    refetchInterval: (query) => ((query.state.data?.analysing_files ?? 0) > 0 ? 2_000 : false),
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
      // Tag names and library listings change with it: every query outside this feature is refreshed.
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

/** Makes one of the model's images its cover; the model's thumbnail becomes that image's. */
export function useChooseCover(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (fileId: string) =>
      unwrap(await api.PUT('/api/v1/models/{id}/cover', { params: { path: { id } }, body: { file_id: fileId } })),
    onSuccess: (model) => {
      queryClient.setQueryData(modelKeys.model(id), model)
      // Thumbnails are kept for the session; this model's is another image now.
      queryClient.removeQueries({ queryKey: thumbnailKeys.of('models', id) })
      queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== 'model' })
    },
  })
}
