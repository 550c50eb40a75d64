import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { EventType } from './event-types.js'
import type { EventsDeps } from './events-deps.js'
import { queueDeliveries } from './webhook-deliveries.js'

/** An event as its publisher describes it. */
export interface EventInput {
  type: EventType
  /** What it happened to: `printer:<id>`, `dispatch:<id>`. */
  subject: string
  data: Record<string, unknown>
}

type PublishDeps = Pick<EventsDeps, 'database' | 'clock' | 'logger' | 'events'>

/** Publishes one event: see `publishEventsWhen`. */
export const publishEvent = (deps: PublishDeps, event: EventInput): Promise<void> =>
  publishEventsWhen(deps, async () => [event])

/**
 * Runs `decide` in a transaction and publishes the events it returns in that same transaction,
 * so a change and its event commit together (of two processes seeing one printer change, only the
 * one whose update wins publishes). Each event is numbered in commit order, queued for the
 * webhooks that want its type, and this process's readers are woken. Publishing never fails the
 * caller's work: an event that cannot be written is logged and lost.
 */
export async function publishEventsWhen(
  deps: PublishDeps,
  decide: (trx: Kysely<Database>) => Promise<EventInput[]>,
): Promise<void> {
  try {
    const published = await deps.database.db.transaction().execute(async (trx) => {
      const events = await decide(trx)
      await recordEvents(trx, deps, events)
      return events.length
    })
    if (published > 0) deps.events.signal.notify()
  } catch (error) {
    deps.logger.warn('an event could not be published', {
      error: error instanceof Error ? error.message : String(error),
    })
  }
}

/**
 * Writes `events` in the caller's transaction `trx`, so they commit with the change they tell of:
 * numbered in commit order and queued for the webhooks that want them. Unlike `publishEventsWhen`,
 * a failure fails the caller's transaction; once it has committed, the caller wakes this process's
 * readers (`deps.events.signal.notify()`).
 */
export async function recordEvents(
  trx: Kysely<Database>,
  deps: Pick<PublishDeps, 'database' | 'clock'>,
  events: EventInput[],
): Promise<void> {
  if (events.length === 0) return
  await deps.database.dialect.takeTurnsPublishingEvents(trx)
  const createdAt = deps.clock.now().toISOString()
  for (const event of events) {
    const { id } = await trx
      .insertInto('events')
      .values({ type: event.type, subject: event.subject, data: JSON.stringify(event.data), created_at: createdAt })
      .returning('id')
      .executeTakeFirstOrThrow()
    await queueDeliveries(trx, { id: Number(id), type: event.type, createdAt })
  }
}
