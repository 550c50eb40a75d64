import { sql } from 'kysely'
import type { RestoreStatements } from '../db/database.js'
import { interruptedBackupError } from './interrupted-work.js'

/**
 * What a restore changes in the restored data inside the same atomic swap, so no state
 * exists in which the swap happened and these did not: every session of the backup's time
 * ends (its holders sign in again); locks held when the backup was taken belonged to
 * processes that are gone; the backup being restored was `running` in its own snapshot and
 * is complete now, and any other backup that was running never finished.
 */
export function restoreStatements(
  restoredAt: Date,
  backup: { id: string; size: number; sha256: string; manifestJson: string; archivedBytes: number },
): RestoreStatements {
  const at = sql.lit(restoredAt.toISOString())
  const running = sql.lit<'running'>('running')
  return (db) => [
    db
      .updateTable('sessions')
      .set({ revoked_at: at, revoked_reason: sql.lit('restore') })
      .where('revoked_at', 'is', null),
    db.deleteFrom('locks'),
    db
      .updateTable('backups')
      .set({
        status: sql.lit<'complete'>('complete'),
        size: sql.lit(backup.size),
        sha256: sql.lit(backup.sha256),
        manifest: sql.lit(backup.manifestJson),
        bytes_done: sql.lit(backup.archivedBytes),
        bytes_total: sql.lit(backup.archivedBytes),
      })
      .where('id', '=', sql.lit(backup.id))
      .where('status', '=', running),
    db
      .updateTable('backups')
      .set({
        status: sql.lit<'failed'>('failed'),
        error: sql.lit(interruptedBackupError),
        finished_at: at,
      })
      .where('status', '=', running),
  ]
}
