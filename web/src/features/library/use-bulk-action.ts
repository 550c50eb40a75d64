import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import type { LibraryQuery } from './library-query'
import { libraryKeys } from './query-keys'
import type { ModelSelection } from './use-model-selection'
import { listFilter } from './use-models'

export type BulkAction = components['schemas']['BulkModelAction']

/** The request's selection: the ids picked, or the library's filter for "all matching". */
function selectionBody(query: LibraryQuery, selection: ModelSelection) {
  return selection.kind === 'all' ? { filter: listFilter(query) } : { model_ids: [...selection.ids] }
}

/**
 * How many models, holding how many files, the selection holds (a dry run, which changes nothing):
 * the count of "all matching" and what a deletion asks about. Off while `enabled` is false.
 */
export function useSelectionCount(query: LibraryQuery, selection: ModelSelection, enabled: boolean) {
  const body = selectionBody(query, selection)
  return useQuery({
    queryKey: [...libraryKeys.all, 'count', body],
    queryFn: async ({ signal }) =>
      unwrap(
        await api.POST('/api/v1/models/bulk', {
          body: { ...body, action: { type: 'delete' }, dry_run: true },
          signal,
        }),
      ),
    enabled: enabled && (selection.kind === 'all' || selection.ids.size > 0),
    placeholderData: keepPreviousData,
  })
}

/**
 * Applies an action to the selection; afterwards every query is refetched or marked stale, since
 * any model, tag or collection on any page may have changed.
 */
export function useBulkAction(query: LibraryQuery, selection: ModelSelection) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (action: BulkAction) =>
      unwrap(await api.POST('/api/v1/models/bulk', { body: { ...selectionBody(query, selection), action } })),
    onSuccess: () => queryClient.invalidateQueries(),
  })
}
