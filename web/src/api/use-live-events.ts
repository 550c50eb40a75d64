import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect, useSyncExternalStore } from 'react'
import { followLiveEvents, liveEventsStore } from './live-events'
import type { ServerSentEvent } from './server-sent-events'

/** What an event's `data` may say about what it concerns. */
interface EventData {
  printer_id?: string
  file_id?: string
}

/**
 * Marks stale the queries an event concerns, by their keys' values (each feature keeps its own
 * keys, and shared code does not import features): a printer's events its list and page, a
 * send's events also that printer's dispatches, and the farm's and the print histories (of models
 * and printers) on every printer, send and job event. When events were missed, everything about printers.
 */
function invalidateFor(queryClient: QueryClient, event: ServerSentEvent): void {
  if (event.event === 'events.missed') {
    void queryClient.invalidateQueries({ queryKey: ['printers'] })
    void queryClient.invalidateQueries({ queryKey: ['farm'] })
    void queryClient.invalidateQueries({ queryKey: ['print-runs'] })
    return
  }
  let data: EventData = {}
  try {
    data = (JSON.parse(event.data) as { data?: EventData }).data ?? {}
  } catch {
    return
  }
  const printerId = data.printer_id
  // The farm shows printers, sends and the queue's jobs together.
  if (/^(printer|dispatch|job)\./.test(event.event)) {
    void queryClient.invalidateQueries({ queryKey: ['farm'] })
    // A print run starts with a send and ends as its printer's state (or its job's) changes.
    void queryClient.invalidateQueries({ queryKey: ['print-runs'] })
  }
  if (event.event.startsWith('printer.') || event.event.startsWith('dispatch.')) {
    void queryClient.invalidateQueries({ queryKey: ['printers', 'list'] })
    if (printerId) void queryClient.invalidateQueries({ queryKey: ['printers', 'printer', printerId] })
  }
  if (event.event.startsWith('dispatch.')) {
    if (printerId) void queryClient.invalidateQueries({ queryKey: ['printers', 'dispatches', printerId] })
  }
}

/** Follows the vault's live events while mounted (once, in the signed-in app), keeping what pages show fresh. */
export function useLiveEvents(): void {
  const queryClient = useQueryClient()
  useEffect(() => {
    const stop = new AbortController()
    void followLiveEvents(stop.signal, (event) => invalidateFor(queryClient, event))
    return () => stop.abort()
  }, [queryClient])
}

/** Whether live events arrive now: pages that poll for changes may stop while they do. */
export function useLiveEventsConnected(): boolean {
  return useSyncExternalStore(liveEventsStore.subscribe, liveEventsStore.getState)
}
