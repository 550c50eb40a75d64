import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { fieldErrors, problemMessage, unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { collectionsKey } from '../../api/use-collections'
import { tagsKey } from '../../api/use-tags'
import { collectionsKeys, showCollections } from './query-keys'

export type Collection = components['schemas']['Collection']

/** A mutation of collections or tags that, once done, refreshes every view showing them. */
export function useLibraryMutation<T, R>(mutationFn: (input: T) => Promise<R>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: collectionsKey })
      queryClient.invalidateQueries({ queryKey: tagsKey })
      for (const queryKey of showCollections) queryClient.invalidateQueries({ queryKey })
    },
  })
}

export function useCreateCollection() {
  return useLibraryMutation(async ({ name, parentId }: { name: string; parentId: string | null }) =>
    unwrap(await api.POST('/api/v1/collections', { body: { name, parent_id: parentId } })),
  )
}

/** Renames a collection, sets its description and its cover (a model's id; null: the first model with a thumbnail). */
export function useEditCollection() {
  return useLibraryMutation(
    async ({ id, ...body }: { id: string; name: string; description: string; cover_model_id?: string | null }) =>
      unwrap(await api.PATCH('/api/v1/collections/{id}', { params: { path: { id } }, body })),
  )
}

/** The collection's models that have a thumbnail: what its cover can be (the first 200 by name). */
export function useCoverChoices(collectionId: string) {
  return useQuery({
    queryKey: collectionsKeys.coverChoices(collectionId),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/models', {
          params: { query: { collection: collectionId, sort: 'name', order: 'asc', limit: 200 } },
          signal,
        }),
      ).items.filter((model) => model.has_thumbnail),
  })
}

/** Puts a collection, with everything inside it, into `parentId` (null: the top level). */
export function useMoveCollection() {
  return useLibraryMutation(async ({ id, parentId }: { id: string; parentId: string | null }) =>
    unwrap(await api.PATCH('/api/v1/collections/{id}', { params: { path: { id } }, body: { parent_id: parentId } })),
  )
}

export function useDeleteCollection() {
  return useLibraryMutation(async (id: string) =>
    unwrap(await api.DELETE('/api/v1/collections/{id}', { params: { path: { id } } })),
  )
}

/** The vault's refusal of a collection's or tag's name, for showing under the name field. */
export const nameError = (error: Error | null): string | undefined =>
  error ? (fieldErrors(error).name ?? problemMessage(error)) : undefined
