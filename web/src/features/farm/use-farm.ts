import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { livePollMs, printerPollMs } from '../../api/live-polling'
import { unwrap } from '../../api/problem'
import { useLiveEventsConnected } from '../../api/use-live-events'
import { farmKeys } from './query-keys'
import type { FarmPrinterChange, FleetPrinter, JobState, NewPrintJob, PrintJobChange } from './types'

/**
 * How often the queue is asked again while live events arrive: they bring every job's change, but
 * not the dispatcher's reasons why a job still waits, which follow printer changes a moment later.
 */
const waitReasonsPollMs = 15_000

/**
 * Every printer with its live status and its queue settings (groups, loaded filament, hold), in
 * the order of the printers list; polled as the printers pages poll (`printerPollMs`).
 */
export function useFleet() {
  const live = useLiveEventsConnected()
  return useQuery({
    queryKey: farmKeys.printers,
    queryFn: async (): Promise<FleetPrinter[]> => {
      const [printers, farm] = await Promise.all([
        api.GET('/api/v1/printers').then(unwrap),
        api.GET('/api/v1/farm/printers').then(unwrap),
      ])
      return printers.items.map((printer) => ({
        printer,
        farm: farm.items.find((entry) => entry.printer_id === printer.id),
      }))
    },
    refetchInterval: (query) =>
      printerPollMs(
        live,
        query.state.data?.map(({ printer }) => printer.status.state),
      ),
    staleTime: 0,
  })
}

/** Jobs per page of the queue: a long queue is shown a page at a time, the next on request. */
const queuePageSize = 100

/**
 * The jobs in the order they go to printers, a page at a time: the open ones (queued, held, being
 * sent, printing), or those in `state`. Each page follows on from the last job of the one before
 * (`next_cursor`), wherever jobs moved meanwhile. Polled often only without live events.
 */
export function useQueue(state?: JobState) {
  const live = useLiveEventsConnected()
  return useInfiniteQuery({
    queryKey: farmKeys.queue(state),
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.GET('/api/v1/queue', {
          params: {
            query: { limit: queuePageSize, ...(state ? { state } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    refetchInterval: live ? waitReasonsPollMs : livePollMs,
    staleTime: 0,
  })
}

/** The models the jobs print, by id: their names and their files' names. A model's files rarely change. */
export function useJobModels(modelIds: string[]) {
  return useQueries({
    queries: [...new Set(modelIds)].map((id) => ({
      queryKey: farmKeys.model(id),
      queryFn: async () => unwrap(await api.GET('/api/v1/models/{id}', { params: { path: { id } } })),
      staleTime: 60_000,
    })),
    combine: (results) => new Map(results.flatMap((result) => (result.data ? [[result.data.id, result.data]] : []))),
  })
}

/** The queue and the printers change together (a job goes, a printer is released): both are asked again. */
function useRefreshFarm() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: farmKeys.all })
}

type JobAction = 'hold' | 'release' | 'cancel' | 'requeue' | 'printed'

/** Holds, releases, cancels, queues again or counts as printed one job; the variables name the job and the action. */
export function useJobAction() {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async ({ id, action }: { id: string; action: JobAction }) =>
      unwrap(await api.POST(`/api/v1/queue/{id}/${action}`, { params: { path: { id } } })),
    onSuccess: refresh,
  })
}

/** Moves a waiting job to a place in the queue (1 is the front). */
export function useMoveJob() {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async ({ id, position }: { id: string; position: number }) =>
      unwrap(await api.POST('/api/v1/queue/{id}/move', { params: { path: { id } }, body: { position } })),
    onSuccess: refresh,
  })
}

/** Changes a job's priority, max attempts or whether its warnings are accepted. */
export function useChangeJob(id: string) {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async (body: PrintJobChange) =>
      unwrap(await api.PATCH('/api/v1/queue/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  })
}

/** Queues files of a model to print. */
export function useCreateJob() {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async (body: NewPrintJob) => unwrap(await api.POST('/api/v1/queue', { body })),
    onSuccess: refresh,
  })
}

/** Replaces a printer's groups and loaded filament types. */
export function useSetFarmPrinter(id: string) {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async (body: FarmPrinterChange) =>
      unwrap(await api.PATCH('/api/v1/farm/printers/{id}', { params: { path: { id } }, body })),
    onSuccess: refresh,
  })
}

/** Lets the queue feed a printer that was held after a failed print. */
export function useReleasePrinter(id: string) {
  const refresh = useRefreshFarm()
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/farm/printers/{id}/release', { params: { path: { id } } })),
    onSuccess: refresh,
  })
}
