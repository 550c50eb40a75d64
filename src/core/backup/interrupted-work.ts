import { type HeldLock, holderIsGone, type LockRow } from '../runtime/db-lock.js'
import {
  lastRestoreMarkName,
  type MaintenanceLockDeps,
  maintenanceLockName,
  releaseAbandonedMaintenanceLock,
  takeMaintenanceLock,
} from '../runtime/maintenance-lock.js'
import type { BackupDeps } from './backup-deps.js'

/** What the record of a backup whose process stopped says. */
export const interruptedBackupError = 'Interrupted: the process running it stopped before it finished.'

type WorkDeps = MaintenanceLockDeps & Pick<BackupDeps, 'logger'>

/**
 * Takes the maintenance lock for a backup or restore (409 while a live process holds it). When
 * the lock was left by a stopped process, says so in the log and fails the backup it ran.
 */
export async function takeMaintenance(deps: WorkDeps, purpose: 'backup' | 'restore'): Promise<HeldLock> {
  const { held, replaced } = await takeMaintenanceLock(deps, purpose)
  await failInterrupted(deps, replaced)
  return held
}

/**
 * At start-up: releases a maintenance lock whose holder is gone and fails every `running` backup
 * whose process no longer holds the lock. A backup another live process runs keeps running.
 */
export async function recoverInterruptedWork(deps: WorkDeps): Promise<void> {
  await failInterrupted(deps, await releaseAbandonedMaintenanceLock(deps))
}

/** Fails the backups of stopped processes and logs what was found, with the stopped holder's lock row. */
async function failInterrupted(deps: WorkDeps, gone: LockRow | null): Promise<void> {
  const failed = await failInterruptedBackups(deps)
  if (!gone && failed === 0) return
  deps.logger.warn(
    gone?.purpose !== 'restore'
      ? 'a backup was interrupted: its process stopped'
      : (await hasSwapped(deps, gone.owner))
        ? "a restore was interrupted after it swapped the backup in: the backup's data is in place"
        : 'a restore was interrupted before it swapped the backup in: the install is as it was before it',
    {
      purpose: gone?.purpose ?? 'backup',
      instance_id: gone?.instance_id ?? null,
      pid: gone?.pid ?? null,
      backups_failed: failed,
    },
  )
}

/** Whether the restore holding the lock under `token` swapped its data in: the restore mark carries its token. */
async function hasSwapped(deps: Pick<MaintenanceLockDeps, 'database'>, token: string): Promise<boolean> {
  const mark = await deps.database.db
    .selectFrom('locks')
    .select('owner')
    .where('name', '=', lastRestoreMarkName)
    .executeTakeFirst()
  return mark?.owner === token
}

/**
 * Whether a `running` backup's process has stopped without its record saying so yet: the lock
 * is free, held under another token, or held by a holder that is gone. Health asks this between
 * the stop and the next start-up or backup, which fail the record.
 */
export async function isBackupInterrupted(
  deps: Pick<MaintenanceLockDeps, 'database' | 'clock' | 'liveness'>,
  record: { lock_token: string | null },
): Promise<boolean> {
  const lock = await deps.database.db
    .selectFrom('locks')
    .selectAll()
    .where('name', '=', maintenanceLockName)
    .executeTakeFirst()
  if (!lock) return true
  if (record.lock_token !== null && lock.owner !== record.lock_token) return true
  return holderIsGone(lock, deps.clock.now(), deps.liveness)
}

/**
 * Fails every `running` backup whose lock token is not in the lock table: its holder released the
 * lock without finishing (killed) or lost it to a takeover. Records from before lock tokens
 * (null) are failed only while nobody holds the lock. One statement, so a backup that starts
 * meanwhile is never failed.
 */
async function failInterruptedBackups(deps: Pick<MaintenanceLockDeps, 'database' | 'clock'>): Promise<number> {
  const result = await deps.database.db
    .updateTable('backups')
    .set({ status: 'failed', error: interruptedBackupError, finished_at: deps.clock.now().toISOString() })
    .where('status', '=', 'running')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('locks')
            .select('locks.name')
            .where('locks.name', '=', maintenanceLockName)
            .where((inner) =>
              inner.or([
                inner('locks.owner', '=', inner.ref('backups.lock_token')),
                inner('backups.lock_token', 'is', null),
              ]),
            ),
        ),
      ),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
