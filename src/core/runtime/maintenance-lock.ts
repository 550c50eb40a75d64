import type { Kysely } from 'kysely'
import type { VaultDatabase } from '../db/database.js'
import type { Database } from '../db/schema.js'
import { VaultError } from '../errors.js'
import type { Clock } from './clock.js'
import { acquireLock, type HeldLock, holderIsGone, type LockHolder, type LockRow } from './db-lock.js'
import type { ProcessLiveness } from './process-liveness.js'

/** One backup or restore at a time, across every process sharing the database. */
export const maintenanceLockName = 'backup-restore'

/**
 * Not a lock but a mark in the lock table, written by each restore's swap with the restore's
 * token as `owner`: a process that finds it changed knows the data was replaced under it. The
 * lock table is the one place every schema since backups existed has, and nobody acquires it.
 */
export const lastRestoreMarkName = 'last-restore'

/** The part of `Deps` the lock reads. */
export interface MaintenanceLockDeps {
  database: Pick<VaultDatabase, 'db' | 'dialect'>
  clock: Clock
  service: { instanceId: string }
  liveness: ProcessLiveness | null
}

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

const holderOf = (deps: MaintenanceLockDeps): LockHolder => ({
  instanceId: deps.service.instanceId,
  liveness: deps.liveness,
})

/**
 * Takes the maintenance lock for a backup or restore, or refuses with 409. A lock left by a
 * stopped process is taken over at once when that process ran on this host, otherwise once
 * its lease lapses (at most 15 s after it stopped); `replaced` is then the stopped holder's row.
 * A restore takes it once the writes under way have committed, and no write commits after it
 * (core/backup/restore-fence.ts).
 */
export async function takeMaintenanceLock(
  deps: MaintenanceLockDeps,
  purpose: 'backup' | 'restore',
): Promise<{ held: HeldLock; replaced: LockRow | null }> {
  const { db, dialect } = deps.database
  const lock = await acquireLock(
    db,
    deps.clock,
    maintenanceLockName,
    purpose,
    holderOf(deps),
    purpose === 'restore' ? (trx) => dialect.waitForWrites(trx) : undefined,
  )
  if ('held' in lock) return lock
  throw new VaultError(
    'maintenance_in_progress',
    `A ${lock.heldBy} is running; try again when it has finished. (If its process was stopped on another host, its lock lapses at ${lock.expiresAt}.)`,
  )
}

/**
 * Removes the maintenance lock when its holder is gone (start-up, before anything reads the
 * lock), with a conditional delete on the holder's token so a new holder is never removed.
 * Resolves the removed row, or null when the lock was free or its holder lives.
 */
export async function releaseAbandonedMaintenanceLock(deps: MaintenanceLockDeps): Promise<LockRow | null> {
  const { db } = deps.database
  const row = await db.selectFrom('locks').selectAll().where('name', '=', maintenanceLockName).executeTakeFirst()
  if (!row || !holderIsGone(row, deps.clock.now(), deps.liveness)) return null
  const removed = await db
    .deleteFrom('locks')
    .where('name', '=', maintenanceLockName)
    .where('owner', '=', row.owner)
    .executeTakeFirst()
  return Number(removed.numDeletedRows) > 0 ? row : null
}
