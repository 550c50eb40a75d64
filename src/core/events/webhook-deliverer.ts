import { deliverDue } from './deliver-due.js'
import type { EventsDeps } from './events-deps.js'
import { pruneEvents } from './prune-events.js'

/** The event log is pruned at most this often. */
const pruneEveryMs = 3_600_000

/**
 * Delivers webhooks in the background: a `deliverDue` pass every `intervalMs`, at once when this
 * process publishes, and again straight away while passes find a full batch; the event log is
 * pruned hourly. Errors (a database that cannot be reached, a restore in progress) are logged
 * and the next pass tries again.
 */
export function startWebhookDeliverer(deps: EventsDeps, options: { intervalMs: number }): { stop(): Promise<void> } {
  const stopping = new AbortController()
  let prunedAt = 0
  const batch = 20
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const seen = deps.events.signal.count
      let attempted = 0
      try {
        const now = deps.clock.now().getTime()
        if (now - prunedAt >= pruneEveryMs) {
          await pruneEvents(deps)
          prunedAt = now
        }
        attempted = await deliverDue(deps, { limit: batch })
      } catch (error) {
        deps.logger.warn('webhook deliveries did not run', {
          error: error instanceof Error ? error.message : String(error),
        })
      }
      if (attempted < batch) await deps.events.signal.wait(options.intervalMs, seen, stopping.signal)
    }
  })()
  return {
    async stop() {
      stopping.abort()
      await loop
    },
  }
}
