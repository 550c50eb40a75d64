import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { Clock } from './clock.js'

export interface HeldLock {
  release(): Promise<void>
}

const ttlMs = 60_000
const heartbeatMs = 15_000

/**
 * Takes the named lock in the database, or returns the purpose of whoever holds it and when
 * the lock lapses unless its holder is still alive to push it on. The
 * holder's heartbeat keeps pushing the expiry forward; a holder that crashed stops doing so
 * and its lock lapses after a minute, so a killed backup never blocks the next one for good.
 */
export async function acquireLock(
  db: Kysely<Database>,
  clock: Clock,
  name: string,
  purpose: string,
): Promise<{ held: HeldLock } | { heldBy: string; expiresAt: string }> {
  const owner = crypto.randomUUID()
  const expiry = () => new Date(clock.now().getTime() + ttlMs).toISOString()
  await db.deleteFrom('locks').where('name', '=', name).where('expires_at', '<', clock.now().toISOString()).execute()
  const inserted = await db
    .insertInto('locks')
    .values({ name, owner, purpose, expires_at: expiry() })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    const holder = await db
      .selectFrom('locks')
      .select(['purpose', 'expires_at'])
      .where('name', '=', name)
      .executeTakeFirst()
    return { heldBy: holder?.purpose ?? 'another operation', expiresAt: holder?.expires_at ?? expiry() }
  }
  const heartbeat = setInterval(() => {
    db.updateTable('locks')
      .set({ expires_at: expiry() })
      .where('name', '=', name)
      .where('owner', '=', owner)
      .execute()
      .catch(() => {})
  }, heartbeatMs)
  return {
    held: {
      async release() {
        clearInterval(heartbeat)
        await db.deleteFrom('locks').where('name', '=', name).where('owner', '=', owner).execute()
      },
    },
  }
}
