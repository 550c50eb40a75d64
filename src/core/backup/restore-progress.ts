import type { Deps } from '../deps.js'
import type { HeldLock } from '../runtime/db-lock.js'
import { maintenanceLockName } from '../runtime/maintenance-lock.js'

/** Where a running restore is: reported in the 503 answers other requests get, and by the CLI. */
export interface RestoreProgress {
  phase: 'verifying' | 'safety_copy' | 'swapping' | 'finishing'
  /** Archive bytes read and checked so far. */
  bytes_done: number
  /** Bytes of the archive, when known. */
  bytes_total: number | null
}

/** How often a restore writes its progress into its lock row within one phase; each new phase is written at once. */
const publishEveryMs = 1000

/**
 * Passes each progress report on to `onProgress` and writes it into the restore's lock row, where
 * the other processes of the install read it for their 503 answers. Writes go one after another
 * and never fail the restore: between the swap and the migrations the restored lock table may
 * lack the column, and the row is then read as a restore without progress.
 */
export function publishRestoreProgress(
  deps: Pick<Deps, 'database' | 'clock'>,
  lock: HeldLock,
  onProgress: (progress: RestoreProgress) => void,
): (progress: RestoreProgress) => void {
  let last: { phase: RestoreProgress['phase']; at: number } | null = null
  let writes = Promise.resolve()
  return (progress) => {
    onProgress(progress)
    const now = deps.clock.now().getTime()
    if (last?.phase === progress.phase && now - last.at < publishEveryMs) return
    last = { phase: progress.phase, at: now }
    writes = writes
      .then(() =>
        deps.database.db
          .updateTable('locks')
          .set({ progress: JSON.stringify(progress) })
          .where('name', '=', maintenanceLockName)
          .where('owner', '=', lock.token)
          .execute(),
      )
      .then(
        () => {},
        () => {},
      )
  }
}
