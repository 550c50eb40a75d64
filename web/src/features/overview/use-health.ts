import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'

import { overviewKeys } from './query-keys'

export type HealthReport = components['schemas']['HealthReport']

/**
 * The vault's health report, refreshed every 30 seconds. A 503 still carries the report (it names
 * the failed component), so it is data here, not an error.
 */
export function useHealth() {
  return useQuery({
    queryKey: overviewKeys.health,
    queryFn: async (): Promise<HealthReport> => {
      const result = await api.GET('/api/v1/health')
      if (result.response.status === 503 && result.error) return result.error
      return unwrap(result)
    },
    refetchInterval: 30_000,
  })
}
