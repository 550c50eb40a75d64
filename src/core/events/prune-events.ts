import type { EventsDeps } from './events-deps.js'

/** How much of the event log is kept: a week, and the newest 10,000 events within it. */
export const eventRetention = { maxAgeMs: 7 * 24 * 3_600_000, maxCount: 10_000 } as const

/**
 * Drops events past the retention (and their deliveries), and deliveries older than it (test
 * sends). A stream resuming from a dropped event is told it missed some (see the events route).
 */
export async function pruneEvents(deps: Pick<EventsDeps, 'database' | 'clock'>): Promise<void> {
  const { db } = deps.database
  const cutoff = new Date(deps.clock.now().getTime() - eventRetention.maxAgeMs).toISOString()
  const newestDropped = await db
    .selectFrom('events')
    .select('id')
    .orderBy('id', 'desc')
    .offset(eventRetention.maxCount)
    .limit(1)
    .executeTakeFirst()
  await db.deleteFrom('webhook_deliveries').where('created_at', '<', cutoff).execute()
  await db.deleteFrom('events').where('created_at', '<', cutoff).execute()
  if (newestDropped) await db.deleteFrom('events').where('id', '<=', Number(newestDropped.id)).execute()
}
