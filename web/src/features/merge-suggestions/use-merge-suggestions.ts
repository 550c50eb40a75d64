import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { mergeSuggestionKeys, showModels } from './query-keys'

export type MergeSuggestion = components['schemas']['MergeSuggestion']

/** The groups of models that look like one model (the first 50), and how many there are. */
export function useMergeSuggestions() {
  return useQuery({
    queryKey: mergeSuggestionKeys.all,
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/models/merge-suggestions', { params: { query: { limit: 50 } } })),
  })
}

/** A change to the groups that, once done, refreshes them and every view of the models. */
function useGroupMutation<T>(mutationFn: (group: MergeSuggestion) => Promise<T>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: mergeSuggestionKeys.all })
      for (const queryKey of showModels) queryClient.invalidateQueries({ queryKey })
    },
  })
}

/** Merges a group's other models into its target (`POST /models/{id}/merge`). */
export function useMergeGroup() {
  return useGroupMutation(async (group) =>
    unwrap(
      await api.POST('/api/v1/models/{id}/merge', {
        params: { path: { id: group.target.id } },
        body: { model_ids: group.others.map((model) => model.id) },
      }),
    ),
  )
}

/** Says a group is not one model: it is not offered again unless another model joins it. */
export function useDismissGroup() {
  return useGroupMutation(async (group) =>
    unwrap(
      await api.POST('/api/v1/models/merge-suggestions/dismiss', {
        body: { model_ids: [group.target, ...group.others].map((model) => model.id) },
      }),
    ),
  )
}
