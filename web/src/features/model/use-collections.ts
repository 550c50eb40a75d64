import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { modelKeys } from './query-keys'

/** Every collection, for choosing the ones a model is in. */
export function useCollections() {
  return useQuery({
    queryKey: modelKeys.collections,
    queryFn: async () => unwrap(await api.GET('/api/v1/collections')).items,
  })
}

/** Every tag in use, as suggestions. */
export function useTags() {
  return useQuery({
    queryKey: modelKeys.tags,
    queryFn: async () => unwrap(await api.GET('/api/v1/tags')).items,
  })
}

/** Puts the model into the collections it was added to and takes it out of the ones removed. */
export function useSetCollections(modelId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ add, remove }: { add: string[]; remove: string[] }) => {
      const params = (id: string) => ({ params: { path: { id, model_id: modelId } } })
      for (const id of add) unwrap(await api.PUT('/api/v1/collections/{id}/models/{model_id}', params(id)))
      for (const id of remove) unwrap(await api.DELETE('/api/v1/collections/{id}/models/{model_id}', params(id)))
    },
    onSettled: () => {
      queryClient.invalidateQueries({ queryKey: modelKeys.model(modelId) })
      queryClient.invalidateQueries({ queryKey: modelKeys.collections })
    },
  })
}
