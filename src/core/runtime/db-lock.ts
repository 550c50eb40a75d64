import type { Kysely, Selectable } from 'kysely'
import type { Database, LocksTable } from '../db/schema.js'
import type { Clock } from './clock.js'
import type { ProcessLiveness } from './process-liveness.js'

export interface HeldLock {
  /** The holder's token in the lock row (`locks.owner`). */
  token: string
  /** True once a renewal found the lock in other hands: this holder paused longer than its lease. */
  lost(): boolean
  /** Pushes the lease forward now, as the timer does every 5 s (after a restore swapped the lock table). */
  renew(): Promise<void>
  release(): Promise<void>
}

/** Who takes a lock: recorded in its row so others can tell whether the holder still lives. */
export interface LockHolder {
  instanceId: string | null
  liveness: ProcessLiveness | null
}

export type LockRow = Selectable<LocksTable>

/** A lock's lease: its holder renews it every `renewEveryMs`; a holder that stops lets it lapse. */
export const lockLeaseMs = 15_000
const renewEveryMs = 5_000
const anonymous: LockHolder = { instanceId: null, liveness: null }

/**
 * Whether a lock's holder is gone: its lease lapsed, or it ran on this host (same boot and pid
 * namespace) under another pid and that process no longer runs. A holder on another host, or in
 * this very process, is only judged by its lease.
 */
export function holderIsGone(row: LockRow, now: Date, liveness: ProcessLiveness | null): boolean {
  if (row.expires_at <= now.toISOString()) return true
  return (
    liveness !== null &&
    row.host_id === liveness.hostId &&
    row.pid !== null &&
    row.pid !== liveness.pid &&
    !liveness.isRunning(row.pid)
  )
}

/**
 * Takes the named lock in the database, or returns the purpose of whoever holds it and when its
 * lease lapses. A lock whose holder is gone (`holderIsGone`) is taken over with one conditional
 * update on the old holder's token, so of several processes racing for it exactly one wins, on
 * SQLite and PostgreSQL alike; `replaced` is then the row of the holder that was gone. With
 * `first`, the row is written in a transaction that runs `first` before it (a restore waits there
 * for the writes under way, `SqlDialect.waitForWrites`).
 */
export async function acquireLock(
  db: Kysely<Database>,
  clock: Clock,
  name: string,
  purpose: string,
  holder: LockHolder = anonymous,
  first?: (trx: Kysely<Database>) => Promise<void>,
): Promise<{ held: HeldLock; replaced: LockRow | null } | { heldBy: string; expiresAt: string }> {
  const token = crypto.randomUUID()
  const claim = (handle: Kysely<Database>) => claimLock(handle, clock, { name, purpose, holder, token })
  const claimed = first
    ? await db.transaction().execute(async (trx) => {
        await first(trx)
        return claim(trx)
      })
    : await claim(db)
  return 'replaced' in claimed ? { held: hold(db, clock, name, token), replaced: claimed.replaced } : claimed
}

async function claimLock(
  db: Kysely<Database>,
  clock: Clock,
  { name, purpose, holder, token }: { name: string; purpose: string; holder: LockHolder; token: string },
): Promise<{ replaced: LockRow | null } | { heldBy: string; expiresAt: string }> {
  const expiry = () => new Date(clock.now().getTime() + lockLeaseMs).toISOString()
  const row = () => ({
    owner: token,
    purpose,
    expires_at: expiry(),
    host_id: holder.liveness?.hostId ?? null,
    pid: holder.liveness?.pid ?? null,
    instance_id: holder.instanceId,
  })
  let current: LockRow | undefined
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('locks')
      .values({ name, ...row() })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { replaced: null }
    current = await db.selectFrom('locks').selectAll().where('name', '=', name).executeTakeFirst()
    if (!current) continue
    if (!holderIsGone(current, clock.now(), holder.liveness)) break
    const taken = await db
      .updateTable('locks')
      .set(row())
      .where('name', '=', name)
      .where('owner', '=', current.owner)
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) > 0) return { replaced: current }
  }
  return { heldBy: current?.purpose ?? 'another operation', expiresAt: current?.expires_at ?? expiry() }
}

/** Renews the lease while the lock is held; `setInterval` exists on every runtime we target. */
function hold(db: Kysely<Database>, clock: Clock, name: string, token: string): HeldLock {
  let lost = false
  const renew = async () => {
    const result = await db
      .updateTable('locks')
      .set({ expires_at: new Date(clock.now().getTime() + lockLeaseMs).toISOString() })
      .where('name', '=', name)
      .where('owner', '=', token)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 0) lost = true
  }
  const renewal = setInterval(() => renew().catch(() => {}), renewEveryMs)
  return {
    token,
    lost: () => lost,
    renew,
    async release() {
      clearInterval(renewal)
      await db.deleteFrom('locks').where('name', '=', name).where('owner', '=', token).execute()
    },
  }
}
