import type { SSEStreamingApi } from 'hono/streaming'
import type { EventsDeps } from '../../core/events/events-deps.js'
import { eventIdRange, readEventsAfter } from '../../core/events/read-events.js'

/** How often a stream looks at its clock for a heartbeat or a credential check; it reads the database only when woken. */
const tickMs = 1_000
/** A comment after this long without a write, so proxies and browsers keep an idle stream open. */
const heartbeatMs = 15_000
/** How often the caller's credential is checked again: a stream ends soon after it expires or is revoked. */
const recheckMs = 15_000
/** Events read per statement while catching up. */
const batch = 100

/**
 * Writes every event after `afterId` to `stream`, then each new one as it is published, until the
 * client goes away or `stillAllowed` says its credential no longer holds. Reads come from the
 * database, so a replica's events reach this stream too: the stream reads again only when this
 * process publishes or the process's one shared poll of the event log (`deps.events.logPoll`) saw
 * a new event, so any number of open streams cost one query per poll interval while nothing happens.
 */
export async function followEvents(
  deps: Pick<EventsDeps, 'database' | 'clock' | 'logger' | 'events'>,
  stream: SSEStreamingApi,
  afterId: number,
  stillAllowed: () => Promise<boolean>,
): Promise<void> {
  const closed = new AbortController()
  stream.onAbort(() => closed.abort())
  const { db } = deps.database
  await stream.write(`retry: 3000\n\n: connected\n\n`)
  const kept = await eventIdRange(db)
  const newest = kept?.last ?? 0
  // Past the newest id kept: the log was replaced (a restored backup numbers from its own), so go on from its end.
  const replaced = afterId > newest
  if (replaced || (kept && afterId > 0 && afterId < kept.first - 1))
    await stream.writeSSE({
      event: 'events.missed',
      data: JSON.stringify({
        after: afterId,
        first_kept: kept?.first ?? null,
        ...(replaced ? { replaced: true } : {}),
      }),
    })
  let last = replaced ? newest : afterId
  let sent = 0
  let wroteAt = deps.clock.now().getTime()
  let checkedAt = wroteAt
  const leave = deps.events.logPoll.follow()
  let seen = deps.events.signal.count
  let woken = true
  try {
    while (!closed.signal.aborted) {
      if (woken) {
        seen = deps.events.signal.count
        const events = await readEventsAfter(db, last, batch)
        for (const event of events) {
          await stream.writeSSE({ id: String(event.id), event: event.type, data: JSON.stringify(event) })
          last = event.id
          sent++
        }
        if (events.length > 0) wroteAt = deps.clock.now().getTime()
        if (events.length === batch) continue
      }
      if (!(await keepUp())) break
      await deps.events.signal.wait(tickMs, seen, closed.signal)
      woken = deps.events.signal.count !== seen
    }
  } finally {
    leave()
  }
  deps.logger.debug('event stream closed', { events_sent: sent, last_event_id: last })

  /** The credential check and the heartbeat when due; false when the credential no longer holds. */
  async function keepUp(): Promise<boolean> {
    const now = deps.clock.now().getTime()
    if (now - checkedAt >= recheckMs) {
      if (!(await stillAllowed())) return false
      checkedAt = now
    }
    if (now - wroteAt >= heartbeatMs) {
      await stream.write(': keep-alive\n\n')
      wroteAt = now
    }
    return true
  }
}
