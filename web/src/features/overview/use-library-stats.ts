import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { paths } from '../../api/schema'
import { overviewKeys } from './query-keys'

/** Totals and breakdowns of the whole library, as `GET /api/v1/models/stats` answers them. */
export type LibraryStats = paths['/api/v1/models/stats']['get']['responses'][200]['content']['application/json']

/** The library's totals and breakdowns. */
export function useLibraryStats() {
  return useQuery({
    queryKey: overviewKeys.stats,
    queryFn: async () => unwrap(await api.GET('/api/v1/models/stats')),
  })
}
