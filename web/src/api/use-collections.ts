import { useQuery } from '@tanstack/react-query'
import { api } from './client'
import { unwrap } from './problem'

/**
 * The one cache key of `GET /api/v1/collections`: the collections page, the library's filter and
 * the model page read the same list, so a change anywhere refreshes it everywhere by this key.
 */
export const collectionsKey = ['all-collections'] as const

/** Every collection with its model count and parent, by name. */
export function useCollections() {
  return useQuery({
    queryKey: collectionsKey,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/collections', { signal })).items,
  })
}
