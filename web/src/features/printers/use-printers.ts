import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { livePollMs, printerPollMs } from '../../api/live-polling'
import { unwrap } from '../../api/problem'
import { useLiveEventsConnected } from '../../api/use-live-events'
import { printerKeys } from './query-keys'
import type { CreatePrinter, PrintControlName, Printer, UpdatePrinter } from './types'

/** Every printer with its live status, polled while the page is visible (see `printerPollMs`). */
export function usePrinters() {
  const live = useLiveEventsConnected()
  return useQuery({
    queryKey: printerKeys.list,
    queryFn: async () => unwrap(await api.GET('/api/v1/printers')).items,
    refetchInterval: (query) =>
      printerPollMs(
        live,
        query.state.data?.map((printer) => printer.status.state),
      ),
    staleTime: 0,
  })
}

/** The kinds of printer the vault can drive, and what each one's address and credentials take. */
export function usePrinterProviders() {
  return useQuery({
    queryKey: printerKeys.providers,
    queryFn: async () => unwrap(await api.GET('/api/v1/printer-providers')).items,
    // They change only with the vault's version.
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** What people call the provider named `name` (its name until the list has loaded). */
export function useProviderLabel(name: string): string {
  return usePrinterProviders().data?.find((provider) => provider.name === name)?.label ?? name
}

/** One printer with its live status, polled while the page is visible (see `printerPollMs`). */
export function usePrinter(id: string) {
  const live = useLiveEventsConnected()
  return useQuery({
    queryKey: printerKeys.printer(id),
    queryFn: async () => unwrap(await api.GET('/api/v1/printers/{id}', { params: { path: { id } } })),
    refetchInterval: (query) =>
      printerPollMs(live, query.state.data === undefined ? undefined : [query.state.data.status.state]),
    staleTime: 0,
  })
}

/** The printer's diagnosis; it always asks the printer, so only on demand and when opened. */
export function useDiagnostics(id: string) {
  return useQuery({
    queryKey: printerKeys.diagnostics(id),
    queryFn: async () => unwrap(await api.GET('/api/v1/printers/{id}/diagnostics', { params: { path: { id } } })),
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/**
 * The printer's dispatches, newest first; refreshed now and then, as slicers and scripts send too,
 * unless live events bring each send.
 */
export function useDispatches(id: string) {
  const live = useLiveEventsConnected()
  return useQuery({
    refetchInterval: live ? false : 5 * livePollMs,
    queryKey: printerKeys.dispatches(id),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/printers/{id}/dispatches', { params: { path: { id }, query: { limit: 50 } } }))
        .items,
  })
}

/** Registers a printer (admins). */
export function useCreatePrinter() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (body: CreatePrinter) => unwrap(await api.POST('/api/v1/printers', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: printerKeys.all }),
  })
}

/** Changes a printer (admins); credentials left out stay as stored. */
export function useUpdatePrinter(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (body: UpdatePrinter) =>
      unwrap(await api.PATCH('/api/v1/printers/{id}', { params: { path: { id } }, body })),
    onSuccess: (printer) => {
      queryClient.setQueryData(printerKeys.printer(id), printer)
      queryClient.invalidateQueries({ queryKey: printerKeys.all })
    },
  })
}

/** Confirms the printer's bed is clear after a job, which makes it ready again (any user). */
export function useConfirmBedClear(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/printers/{id}/bed-cleared', { params: { path: { id } } })),
    onSuccess: (printer) => {
      queryClient.setQueryData(printerKeys.printer(id), printer)
      queryClient.invalidateQueries({ queryKey: printerKeys.list })
    },
  })
}

/** Removes a printer (admins); its dispatch records stay. */
export function useDeletePrinter(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/printers/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: printerKeys.printer(id) })
      queryClient.invalidateQueries({ queryKey: printerKeys.list })
    },
  })
}

/**
 * Pauses, resumes or cancels the print a printer runs, naming the print shown (its file and run),
 * so the vault refuses if the printer moved on since; the printers are asked again after.
 */
export function usePrintControl(printer: Printer) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (control: PrintControlName) => {
      const job = printer.status.job
      const body = { file_name: job?.file_name ?? '', run_id: job?.run_id ?? null }
      return unwrap(await api.POST(`/api/v1/printers/{id}/${control}`, { params: { path: { id: printer.id } }, body }))
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: printerKeys.all }),
  })
}
