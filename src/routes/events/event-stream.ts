import type { SSEStreamingApi } from 'hono/streaming'
import type { EventsDeps } from '../../core/events/events-deps.js'
import { eventIdRange, readEventsAfter } from '../../core/events/read-events.js'

/** How often the database is read for what other processes published (this one's wake the stream at once). */
const pollMs = 1_000
/** A comment after this long without a write, so proxies and browsers keep an idle stream open. */
const heartbeatMs = 15_000
/** How often the caller's credential is checked again: a stream ends soon after it expires or is revoked. */
const recheckMs = 15_000
/** Events read per statement while catching up. */
const batch = 100

/**
 * Writes every event after `afterId` to `stream`, then each new one as it is published, until the
 * client goes away or `stillAllowed` says its credential no longer holds. Reads come from the
 * database, so a replica's events reach this stream too.
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
  while (!closed.signal.aborted) {
    const seen = deps.events.signal.count
    const events = await readEventsAfter(db, last, batch)
    for (const event of events) {
      await stream.writeSSE({ id: String(event.id), event: event.type, data: JSON.stringify(event) })
      last = event.id
      sent++
    }
    const now = deps.clock.now().getTime()
    if (events.length > 0) wroteAt = now
    if (events.length === batch) continue
    if (now - checkedAt >= recheckMs) {
      if (!(await stillAllowed())) break
      checkedAt = now
    }
    if (now - wroteAt >= heartbeatMs) {
      await stream.write(': keep-alive\n\n')
      wroteAt = now
    }
    await deps.events.signal.wait(pollMs, seen, closed.signal)
  }
  deps.logger.debug('event stream closed', { events_sent: sent, last_event_id: last })
}
