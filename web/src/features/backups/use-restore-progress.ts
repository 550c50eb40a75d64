import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import type { components } from '../../api/schema'
import { backupsKeys } from './query-keys'

export type RestoreProgress = components['schemas']['RestoreProgress']
type RestoreInProgressProblem = components['schemas']['RestoreInProgressProblem']

/** The restore's progress when `body` is the vault's 503 `restore_in_progress` problem, else null. */
export function restoreProgressOf(body: unknown): RestoreProgress | null {
  if (typeof body !== 'object' || body === null) return null
  const problem = body as Partial<RestoreInProgressProblem>
  return problem.code === 'restore_in_progress' && problem.restore ? problem.restore : null
}

/**
 * While `enabled`, asks the vault's health every second whether a restore runs: during a restore
 * every request, health too, answers 503 `restore_in_progress` with the progress. Null when none runs.
 */
export function useRestoreProgress(enabled: boolean) {
  return useQuery({
    queryKey: backupsKeys.restoreProgress,
    queryFn: async () => restoreProgressOf((await api.GET('/api/v1/health')).error),
    enabled,
    refetchInterval: enabled ? 1000 : false,
    retry: false,
    staleTime: 0,
  })
}
