import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'

/** Models whose name or files match `search`, for choosing where files go (first 20). */
export function useModelChoices(search: string) {
  return useQuery({
    queryKey: ['model', 'choices', search] as const,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/models', { params: { query: { q: search || undefined, limit: 20, sort: 'name' } } }),
      ).items,
  })
}

/** After a reshape every model, listing and count may have changed: fetch them again. */
function useForgetModels() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries()
}

/** Files of this model into another model (`move` or `copy`), or split off into a new model of `name`; answers the model they went to. */
export function useSendFiles(modelId: string) {
  const forget = useForgetModels()
  return useMutation({
    mutationFn: async (change: { fileIds: string[] } & ({ into: string; mode: 'move' | 'copy' } | { name: string })) =>
      'name' in change
        ? unwrap(
            await api.POST('/api/v1/models/{id}/split', {
              params: { path: { id: modelId } },
              body: { file_ids: change.fileIds, name: change.name },
            }),
          )
        : unwrap(
            await api.POST('/api/v1/models/{id}/files', {
              params: { path: { id: change.into } },
              body: { file_ids: change.fileIds, mode: change.mode },
            }),
          ),
    onSuccess: forget,
  })
}

/** Merges the models `sources` into this one; answers the merged model. */
export function useMergeModels(modelId: string) {
  const forget = useForgetModels()
  return useMutation({
    mutationFn: async (sources: string[]) =>
      unwrap(
        await api.POST('/api/v1/models/{id}/merge', {
          params: { path: { id: modelId } },
          body: { model_ids: sources },
        }),
      ),
    onSuccess: forget,
  })
}
