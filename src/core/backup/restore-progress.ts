import { VaultError } from '../errors.js'
import type { HeldLock } from '../runtime/db-lock.js'
import { maintenanceLockName } from '../runtime/maintenance-lock.js'
import type { BackupDeps } from './backup-deps.js'

/** Where a running restore is: reported in the 503 answers other requests get, and by the CLI. */
export interface RestoreProgress {
  phase: 'verifying' | 'safety_copy' | 'swapping' | 'finishing'
  /** Archive bytes read and checked so far. */
  bytes_done: number
  /** Bytes of the archive, when known. */
  bytes_total: number | null
}

/**
 * 503 `restore_in_progress`: a restore is replacing the data, so the request was not served (or its
 * write not committed); `Retry-After` says when to ask again and `restore` carries the progress.
 */
export const restoreInProgress = (restore: RestoreProgress) =>
  new VaultError(
    'restore_in_progress',
    'The install is being restored from a backup; try again when the restore has finished.',
    { headers: { 'Retry-After': '10' }, extensions: { restore } },
  )

/**
 * Passes each progress report on to `onProgress` and writes the first report of the phases that
 * begin on an idle database (`verifying`, right after the lock was taken; `finishing`, right after
 * the swap) into the restore's lock row, where the other processes of the install read it for
 * their 503 answers. Not during the safety copy or the swap: a write there waits on them
 * (PostgreSQL's swap drops the table; on SQLite it stalled the snapshot of another process's
 * restore). Writes go one after another and never fail the restore: between the swap and the
 * migrations the restored lock table may lack the column, and the row then reads as a restore
 * without progress.
 */
const publishedPhases: RestoreProgress['phase'][] = ['verifying', 'finishing']

export function publishRestoreProgress(
  deps: Pick<BackupDeps, 'database'>,
  lock: HeldLock,
  onProgress: (progress: RestoreProgress) => void,
): (progress: RestoreProgress) => void {
  let phase: RestoreProgress['phase'] | null = null
  let writes = Promise.resolve()
  return (progress) => {
    onProgress(progress)
    if (progress.phase === phase || !publishedPhases.includes(progress.phase)) return
    phase = progress.phase
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
