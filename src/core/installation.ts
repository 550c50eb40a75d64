import type { Kysely } from 'kysely'
import type { Database } from './db/schema.js'
import type { Clock } from './runtime/clock.js'

/**
 * The id of this install, created on first start. It stays the same across restarts and
 * restores of its own backups, so archives and logs can say which vault they belong to.
 */
export async function ensureInstallation(db: Kysely<Database>, clock: Clock): Promise<string> {
  await db
    .insertInto('installation')
    .values({ singleton: 1, id: crypto.randomUUID(), created_at: clock.now().toISOString() })
    .onConflict((oc) => oc.column('singleton').doNothing())
    .execute()
  const row = await db.selectFrom('installation').select('id').executeTakeFirstOrThrow()
  return row.id
}
