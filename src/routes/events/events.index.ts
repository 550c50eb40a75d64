import { streamSSE } from 'hono/streaming'
import { eventIdRange } from '../../core/events/read-events.js'
import { credentialStillValid } from '../access.js'
import { createRouter, requestDeps } from '../app-env.js'
import { followEvents } from './event-stream.js'
import { streamEventsRoute } from './events.routes.js'

export const eventsRouter = createRouter().openapi(streamEventsRoute, async (c) => {
  const deps = requestDeps(c)
  const resumeAfter = c.req.valid('header')['last-event-id'] ?? c.req.valid('query').last_event_id
  const afterId = resumeAfter !== undefined ? Number(resumeAfter) : ((await eventIdRange(deps.database.db))?.last ?? 0)
  // nginx reads this and passes the stream on as it comes instead of buffering it.
  c.header('X-Accel-Buffering', 'no')
  return streamSSE(
    c,
    (stream) => followEvents(deps, stream, afterId, () => credentialStillValid(c)),
    async (error) => deps.logger.warn('event stream failed', { error: error.message }),
  )
})
