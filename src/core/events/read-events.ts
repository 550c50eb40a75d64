import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'

/** An event as readers get it. */
export interface VaultEvent {
  id: number
  type: string
  subject: string
  data: Record<string, unknown>
  created_at: string
}

/** The events after `afterId`, oldest first, at most `limit`. */
export async function readEventsAfter(db: Kysely<Database>, afterId: number, limit: number): Promise<VaultEvent[]> {
  const rows = await db.selectFrom('events').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute()
  return rows.map((row) => ({ ...row, id: Number(row.id), data: JSON.parse(row.data) as Record<string, unknown> }))
}

/** The ids of the oldest and the newest event kept; null when the log is empty. */
export async function eventIdRange(db: Kysely<Database>): Promise<{ first: number; last: number } | null> {
  const row = await db
    .selectFrom('events')
    .select((eb) => [eb.fn.min('id').as('first'), eb.fn.max('id').as('last')])
    .executeTakeFirst()
  return row?.first == null || row.last == null ? null : { first: Number(row.first), last: Number(row.last) }
}
