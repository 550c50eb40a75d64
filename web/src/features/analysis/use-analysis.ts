import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { analysisKeys } from './query-keys'

export type AnalysisStatus = components['schemas']['AnalysisStatus']
export type AnalysisFailure = components['schemas']['AnalysisFailure']

/** Files still to render: those waiting and those being rendered now. */
export const pendingOf = (status: AnalysisStatus) => status.queued + status.running

/**
 * How the background analysis stands (`GET /api/v1/analysis`): asked every 2 s while anything
 * waits or renders, so the figures count down, and every 30 s otherwise, to notice new uploads
 * (from this tab, another one or the API) without asking often.
 */
export function useAnalysis() {
  return useQuery({
    queryKey: analysisKeys.status,
    queryFn: async () => unwrap(await api.GET('/api/v1/analysis')),
    refetchInterval: (query) => (query.state.data && pendingOf(query.state.data) > 0 ? 2_000 : 30_000),
  })
}

/**
 * Queues failed analyses again: the one of `sha256`, or every failure when it is absent. The
 * queue and the models (whose `analysing_files` count the retried files again) are asked anew.
 */
export function useRetryAnalysis() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (sha256?: string) =>
      unwrap(await api.POST('/api/v1/analysis/retry', { body: sha256 ? { sha256 } : {} })),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: analysisKeys.status }),
        // The library's lists and the model pages, by their keys' first parts (each feature keeps its own keys).
        queryClient.invalidateQueries({
          predicate: (query) => ['library', 'model'].includes(String(query.queryKey[0])),
        }),
      ]),
  })
}
