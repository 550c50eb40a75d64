import { useQuery } from '@tanstack/react-query'
import { api } from './client'
import { unwrap } from './problem'

/**
 * The one cache key of `GET /api/v1/tags`: the tags table, the library's filter and the model
 * page's suggestions read the same list, so a change anywhere refreshes it everywhere by this key.
 */
export const tagsKey = ['all-tags'] as const

/** Every tag in use with its model count, by name. */
export function useTags() {
  return useQuery({
    queryKey: tagsKey,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/tags', { signal })).items,
  })
}
