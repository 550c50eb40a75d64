import type { WriteGuard } from '../db/guarded-writes.js'
import type { BackupDeps } from './backup-deps.js'
import { restoreInProgress } from './restore-progress.js'
import { readRestoreLocks } from './restore-watch.js'

/**
 * The rule that keeps a restore from dropping a write it let through: a write commits only in a
 * transaction that, holding off restores (`SqlDialect.holdOffRestores`), found no live restore that
 * has yet to swap its data in; otherwise it fails with 503 `restore_in_progress` and nothing of it
 * commits. A restore writes its lock row only once no such transaction is open
 * (`SqlDialect.waitForWrites`), so every write either committed before the restore began or is
 * refused. After the swap (the restore's mark carries its token) writes land in the restored data
 * and pass. Writes to the lock table and the backup catalogue pass unchecked: the restore writes
 * them itself, and its swap rewrites both (core/backup/restore-statements.ts).
 */
export function createRestoreFence(deps: Pick<BackupDeps, 'clock' | 'liveness'>): WriteGuard {
  return {
    unguardedTables: new Set(['locks', 'backups']),
    async check(trx, dialect) {
      await dialect.holdOffRestores(trx)
      const { running, swapped } = await readRestoreLocks(trx, deps.clock.now(), deps.liveness)
      if (running && !swapped) throw restoreInProgress(running)
    },
  }
}
