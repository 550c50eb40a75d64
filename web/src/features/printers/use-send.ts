import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { printerKeys } from './query-keys'
import type { Dispatch } from './types'

const isDispatch = (body: unknown): body is Dispatch =>
  typeof body === 'object' && body !== null && 'outcome' in body && 'steps' in body

/**
 * Sends a stored G-code file to a printer (and starts it when asked). Resolves the dispatch record
 * whatever it says, also when the printer let us down after the upload (409 `not_ready_after_upload`,
 * 502): that record is the honest outcome. A refusal before anything was sent (409
 * `printer_not_ready`, 404, 422) is thrown as an `ApiError`.
 */
export function useSendToPrinter() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ printerId, fileId, start }: { printerId: string; fileId: string; start: boolean }) => {
      const result = await api.POST('/api/v1/printers/{id}/send', {
        params: { path: { id: printerId } },
        body: { file_id: fileId, start },
      })
      if (isDispatch(result.error)) return result.error
      return unwrap(result)
    },
    onSettled: (_dispatch, _error, { printerId }) => {
      queryClient.invalidateQueries({ queryKey: printerKeys.dispatches(printerId) })
      queryClient.invalidateQueries({ queryKey: printerKeys.list })
      queryClient.invalidateQueries({ queryKey: printerKeys.printer(printerId) })
      // The model page's print history (by value: features do not import each other).
      queryClient.invalidateQueries({ queryKey: ['model'] })
      queryClient.invalidateQueries({ queryKey: ['print-runs'] })
    },
  })
}
