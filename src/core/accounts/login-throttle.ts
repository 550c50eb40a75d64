import { type Kysely, sql } from 'kysely'
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

/**
 * Password guesses count against the account and the client address. API-key guesses count
 * against the address only: a 256-bit key cannot be guessed, and counting them against the
 * account would let anyone lock a slicer hook out by failing the account's password.
 */
export function throttleKeys(
  credential: 'password' | 'api_key',
  usernameKey: string,
  clientAddress: string | undefined,
): ThrottleKey[] {
  return [
    ...(credential === 'password' ? [{ key: `account:${usernameKey}`, threshold: 5 }] : []),
    ...(clientAddress ? [{ key: `address:${clientAddress}`, threshold: 20 }] : []),
  ]
}

/** Refuses with 429 and `Retry-After` while any of the keys is locked. */
export async function assertNotThrottled(db: Kysely<Database>, keys: ThrottleKey[], now: Date): Promise<void> {
  const rows = await db
    .selectFrom('login_failures')
    .select('locked_until')
    .where(
      'key',
      'in',
      keys.map((k) => k.key),
    )
    .where('locked_until', '>', now.toISOString())
    .$narrowType<{ locked_until: string }>()
    .execute()
  if (rows.length === 0) return
  const until = Math.max(...rows.map((row) => Date.parse(row.locked_until)))
  const seconds = Math.ceil((until - now.getTime()) / 1000)
  throw tooManyRequests(`Too many failed sign-in attempts; try again in ${waitText(seconds)}.`, seconds)
}

/** A wait in words a person reads at a glance: "30 seconds", "2 minutes", "1 hour". */
export function waitText(seconds: number): string {
  const [amount, unit] =
    seconds < 90
      ? [seconds, 'second']
      : seconds < 5400
        ? [Math.ceil(seconds / 60), 'minute']
        : [Math.ceil(seconds / 3600), 'hour']
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`
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
    const lockedUntil = new Date(now.getTime() + lockMs).toISOString()
    // A concurrent failure may have set a longer lock already; never shorten it.
    await db
      .updateTable('login_failures')
      .set({ locked_until: lockedUntil })
      .where('key', '=', key)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', lockedUntil)]))
      .execute()
  }
}

/**
 * A correct password clears the account's count; the address's count stays (one success must
 * not reset a spray from that address).
 */
export async function clearPasswordFailures(db: Kysely<Database>, usernameKey: string): Promise<void> {
  await db.deleteFrom('login_failures').where('key', '=', `account:${usernameKey}`).execute()
}
