import { sql } from 'kysely'
import type { RestoreStatements } from '../db/database.js'
import type { LockHolder } from '../runtime/db-lock.js'
import { lastRestoreMarkName, maintenanceLockName } from '../runtime/maintenance-lock.js'
import { interruptedBackupError } from './interrupted-work.js'

/**
 * What a restore changes in the restored data inside the same atomic swap, so no state
 * exists in which the swap happened and these did not: every session of the backup's time
 * ends (its holders sign in again); locks held when the backup was taken belonged to
 * processes that are gone, but the restore's own lock carries over, naming its holder, so no
 * backup or restore starts while it finishes, other processes keep answering 503, and a start
 * after the holder was killed sees at once that it is gone; a mark names this restore,
 * so every process of the install learns that the data changed under it; the backup being restored was `running` in its own snapshot and
 * is complete now, and any other backup that was running never finished; analysis jobs that were
 * being rendered wait again.
 */
export function restoreStatements(
  restoredAt: Date,
  backup: { id: string; size: number; sha256: string; manifestJson: string; archivedBytes: number },
  /**
   * The restore's lock token, the lease its row carries until the holder next renews it, and the
   * backup's schema version: from 0008 on, the lock table has the columns that name the holder.
   */
  lock: { token: string; expiresAt: Date; holder: LockHolder; schemaVersion: number },
): RestoreStatements {
  const at = sql.lit(restoredAt.toISOString())
  const running = sql.lit<'running'>('running')
  return (db) => [
    db
      .updateTable('sessions')
      .set({ revoked_at: at, revoked_reason: sql.lit('restore') })
      .where('revoked_at', 'is', null),
    db.deleteFrom('locks'),
    // Only the columns the backup's lock table has: these run before the restored data is migrated.
    db.insertInto('locks').values([
      {
        name: sql.lit(maintenanceLockName),
        owner: sql.lit(lock.token),
        purpose: sql.lit('restore'),
        expires_at: sql.lit(lock.expiresAt.toISOString()),
        ...(lock.schemaVersion >= lockHoldersSchemaVersion ? holderColumns(lock.holder) : {}),
      },
      { name: sql.lit(lastRestoreMarkName), owner: sql.lit(lock.token), purpose: sql.lit('restore'), expires_at: at },
    ]),
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
    // Jobs being rendered when the backup was taken were held by processes of another time: queue them again, uncounted.
    ...(lock.schemaVersion >= analysisQueueSchemaVersion
      ? [
          db
            .updateTable('analysis_jobs')
            .set((eb) => ({
              state: sql.lit<'queued'>('queued'),
              lease_owner: sql.lit(null),
              lease_until: sql.lit(null),
              attempts: eb('attempts', '-', sql.lit(1)),
            }))
            .where('state', '=', running),
        ]
      : []),
  ]
}

/** The migration (0008) that gave the lock table the columns naming a lock's holder. */
const lockHoldersSchemaVersion = 8
/** The migration (0027) that made the analysis queue. */
const analysisQueueSchemaVersion = 27

const holderColumns = ({ liveness, instanceId }: LockHolder) => ({
  host_id: sql.lit(liveness?.hostId ?? null),
  pid: sql.lit(liveness?.pid ?? null),
  instance_id: sql.lit(instanceId),
})
