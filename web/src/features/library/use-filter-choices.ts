import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { libraryKeys } from './query-keys'

/** The tags and collections the library can be filtered by, with their model counts. */
export function useFilterChoices() {
  const tags = useQuery({
    queryKey: libraryKeys.tags,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/tags', { signal })),
  })
  const collections = useQuery({
    queryKey: libraryKeys.collections,
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/collections', { signal })),
  })
  return { tags: tags.data?.items ?? [], collections: collections.data?.items ?? [] }
}
