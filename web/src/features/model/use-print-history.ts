import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { modelKeys } from './query-keys'

/** The sends of the model's files to printers, newest first (the last 50). */
export function usePrintHistory(modelId: string) {
  return useQuery({
    queryKey: modelKeys.printHistory(modelId),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/dispatches', { params: { query: { model_id: modelId, limit: 50 } } })).items,
  })
}
