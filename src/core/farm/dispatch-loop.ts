import type { DispatcherDeps } from './dispatcher.js'
import { dispatchNext } from './dispatcher.js'

/** The print queue's dispatcher as a process runs it: a pass every interval, and one at once when woken. */
export interface DispatchLoop {
  /** Tells the loop the queue or a printer changed (a job queued, a bed confirmed clear): a pass follows at once. */
  wake(): void
  /** Resolves once the pass under way, if any, has ended; no pass starts afterwards. */
  stop(): Promise<void>
}

/**
 * Runs `dispatchNext` one pass at a time: every `intervalMs` (printers' statuses change without
 * telling the vault, so they are looked at that often) and when woken. While no job is open the
 * pass is skipped and no printer is asked anything, unless a bed is to be cleared by script. A
 * clearing script runs beside the passes; stopping waits for it to settle its run. Every decision is in the database under
 * leases, so any number of processes may run this loop over one database.
 */
export function startDispatchLoop(
  deps: DispatcherDeps,
  options: { intervalMs: number; leaseMs?: number },
): DispatchLoop {
  let running: Promise<void> | null = null
  let again = false
  let stopped = false
  const scripts = new Set<Promise<void>>()
  const pass = async () => {
    const { db } = deps.database
    const open = await db
      .selectFrom('print_jobs')
      .select('id')
      .where('state', 'in', ['queued', 'dispatching', 'printing'])
      .limit(1)
      .executeTakeFirst()
    // A bed to clear by script is cleared after the last job too.
    const toClear = open
      ? undefined
      : await db
          .selectFrom('printers')
          .select('id')
          .where('bed_clear_by', '=', 'script')
          .where('bed_occupied_since', 'is not', null)
          .where('held_reason', 'is', null)
          .limit(1)
          .executeTakeFirst()
    if (!open && !toClear) return
    for (const script of (await dispatchNext(deps, options.leaseMs ? { leaseMs: options.leaseMs } : undefined))
      .scripts) {
      scripts.add(script)
      // A script that ended lets the bed be confirmed clear at once.
      void script.finally(() => {
        scripts.delete(script)
        wake()
      })
    }
  }
  const wake = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = pass()
      .catch((error: Error) => deps.logger.error('print queue pass failed', { error: error.message }))
      .finally(() => {
        running = null
        if (again) {
          again = false
          wake()
        }
      })
  }
  const timer = setInterval(wake, options.intervalMs)
  return {
    wake,
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
      await Promise.all(scripts)
    },
  }
}
