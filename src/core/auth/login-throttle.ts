import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { tooManyRequests } from '../errors.js'

/**
 * Failed sign-ins are counted per account and per client address in the database, so the
 * limits hold across restarts and across processes. Within a 15-minute window, the 5th
 * failure for an account (the 20th for an address) locks it for 30 s, doubling with each
 * further failure up to 15 minutes. Unknown usernames are counted like real ones, so the
 * throttle does not reveal which accounts exist.
 */
export interface ThrottleKey {
  key: string
  threshold: number
}

const windowMs = 15 * 60 * 1000
const firstLockMs = 30 * 1000
const maxLockMs = 15 * 60 * 1000

export const throttleKeys = (usernameKey: string, clientAddress: string | undefined): ThrottleKey[] => [
  { key: `account:${usernameKey}`, threshold: 5 },
  ...(clientAddress ? [{ key: `address:${clientAddress}`, threshold: 20 }] : []),
]

/** Refuses with 429 and `Retry-After` while any of the keys is locked. */
export async function assertNotThrottled(db: Kysely<Database>, keys: ThrottleKey[], now: Date): Promise<void> {
  const rows = await db
    .selectFrom('login_failures')
    .select('locked_until')
    .where('key', 'in', keys.map((k) => k.key))
    .where('locked_until', '>', now.toISOString())
    .execute()
  if (rows.length === 0) return
  const until = Math.max(...rows.map((row) => Date.parse(row.locked_until!)))
  throw tooManyRequests('Too many failed sign-in attempts; wait before trying again.', Math.ceil((until - now.getTime()) / 1000))
}

/** Counts one failure for each key (one atomic upsert each, so concurrent failures all count). */
export async function recordLoginFailure(db: Kysely<Database>, keys: ThrottleKey[], now: Date): Promise<void> {
  const nowIso = now.toISOString()
  const windowStart = new Date(now.getTime() - windowMs).toISOString()
  const windowExpired = sql<boolean>`login_failures.first_failure_at < ${windowStart}`
  for (const { key, threshold } of keys) {
    const { failures } = await db
      .insertInto('login_failures')
      .values({ key, failures: 1, first_failure_at: nowIso, locked_until: null })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql`case when ${windowExpired} then 1 else login_failures.failures + 1 end`,
          first_failure_at: sql`case when ${windowExpired} then ${nowIso} else login_failures.first_failure_at end`,
        }),
      )
      .returning('failures')
      .executeTakeFirstOrThrow()
    if (failures < threshold) continue
    const lockMs = Math.min(maxLockMs, firstLockMs * 2 ** (failures - threshold))
    await db
      .updateTable('login_failures')
      .set({ locked_until: new Date(now.getTime() + lockMs).toISOString() })
      .where('key', '=', key)
      .execute()
  }
}

/** A successful sign-in clears the account's count (not the address's: one success must not reset a spray). */
export async function clearAccountFailures(db: Kysely<Database>, keys: ThrottleKey[]): Promise<void> {
  await db.deleteFrom('login_failures').where('key', '=', keys[0]!.key).execute()
}
