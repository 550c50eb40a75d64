import type { MiddlewareHandler, Next } from 'hono'
import { type RestoreProgress, restoreInProgress } from '../../core/backup/restore-progress.js'
import type { RestoreWatch } from '../../core/backup/restore-watch.js'

/**
 * Holds an app's other API requests off while a restore runs in it or in any other process
 * sharing its database: they answer 503 with `Retry-After` and the restore's progress, so
 * nothing reads data that is being replaced. (A write that passed the gate before it closed is
 * refused at its commit instead: core/backup/restore-fence.ts.) In this
 * process the gate closes at the restore's first progress report (once it holds the lock and has
 * found its archive), so a restore refused with 404 or 409 never closes it; the restore's own
 * request passed it before. Other processes see the restore through `watch` (within half a second).
 */
export interface RestoreGate {
  run<T>(restore: (report: (progress: RestoreProgress) => void) => Promise<T>): Promise<T>
  /** Typed without `AppEnv`: that type names this gate, and naming it back would close an import circle. */
  middleware: MiddlewareHandler
}

export function createRestoreGate(watch: RestoreWatch): RestoreGate {
  let running: RestoreProgress | null = null
  return {
    async run(restore) {
      try {
        return await restore((progress) => (running = progress))
      } finally {
        running = null
        watch.forget()
      }
    },
    // Not async: the common answer, no restore seen lately, passes without a promise of its own.
    middleware(_c, next) {
      const seen = running ?? watch.running()
      return seen === null ? next() : refuseDuringRestore(next, seen)
    },
  }
}

/** Answers 503 while a restore runs (once what was seen is known), else lets the request through. */
async function refuseDuringRestore(next: Next, seen: RestoreProgress | Promise<RestoreProgress | null>): Promise<void> {
  const restore = await seen
  if (restore) throw restoreInProgress(restore)
  await next()
}
