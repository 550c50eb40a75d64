import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { LibraryQuery } from './library-query'
import { libraryKeys } from './query-keys'

const pageSize = 48

/** While a model shown has files still being analysed, the list is asked again this often (ms). */
const analysingRefetch = 2_000

/**
 * The models matching `query`, a page at a time over the API's keyset cursor. Asked again every
 * 2 s while any model loaded has files waiting for the background analysis (`analysing_files`),
 * so their thumbnails appear once rendered, without a reload; not at all otherwise.
 */
export function useModels(query: LibraryQuery) {
  return useInfiniteQuery(modelsQuery(query))
}

/** The query behind `useModels`, for prefetching the first page before the library is drawn. */
export function modelsQuery(query: LibraryQuery) {
  return infiniteQueryOptions({
    queryKey: libraryKeys.list(query),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      unwrap(
        await api.GET('/api/v1/models', {
          params: {
            query: {
              ...listFilter(query),
              sort: query.sort,
              limit: pageSize,
              cursor: pageParam,
            },
          },
          signal,
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    refetchInterval: (list) =>
      list.state.data?.pages.some((page) => page.items.some((model) => model.analysing_files > 0))
        ? analysingRefetch
        : false,
  })
}

/** The list's filter parameters for `query`: what the model list takes, and what a bulk action selects by. */
export function listFilter(query: LibraryQuery) {
  return {
    q: query.q.trim() || undefined,
    file_format: query.formats.length > 0 ? query.formats : undefined,
    has_gcode: query.hasGcode ? ('true' as const) : undefined,
    tag: query.tags.length > 0 ? query.tags : undefined,
    collection: query.collection || undefined,
    // A collection stands for everything in it, its sub-collections' models too.
    include_descendants: query.collection ? ('true' as const) : undefined,
    // Whole days in the browser's time zone.
    created_from: query.addedFrom ? new Date(`${query.addedFrom}T00:00:00`).toISOString() : undefined,
    created_to: query.addedTo ? new Date(`${query.addedTo}T23:59:59.999`).toISOString() : undefined,
  }
}
