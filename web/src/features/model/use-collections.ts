import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { collectionsKey } from '../../api/use-collections'
import { modelKeys } from './query-keys'

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
      // The collections' model counts change with it.
      queryClient.invalidateQueries({ queryKey: collectionsKey })
    },
  })
}
