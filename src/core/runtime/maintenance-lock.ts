import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { conflict } from '../errors.js'
import type { Clock } from './clock.js'
import { acquireLock, type HeldLock } from './db-lock.js'

/** One backup or restore at a time, across every process sharing the database. */
export const maintenanceLockName = 'backup-restore'

/** Whether a backup or restore holds the maintenance lock right now. */
export async function isMaintenanceRunning(db: Kysely<Database>, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('locks')
    .select('name')
    .where('name', '=', maintenanceLockName)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst()
  return row !== undefined
}

/**
 * Takes the maintenance lock for a backup or restore, or refuses with 409. The refusal says
 * when the lock lapses: a process killed mid-backup leaves it held for up to a minute.
 */
export async function takeMaintenanceLock(
  db: Kysely<Database>,
  clock: Clock,
  purpose: 'backup' | 'restore',
): Promise<HeldLock> {
  const lock = await acquireLock(db, clock, maintenanceLockName, purpose)
  if ('held' in lock) return lock.held
  throw conflict(
    'maintenance_in_progress',
    `A ${lock.heldBy} is running; try again when it has finished. (If its process was stopped, its lock lapses at ${lock.expiresAt}.)`,
  )
}
