import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'

/** What a caller's own `X-Request-Id` may be, as Hono's request-id middleware accepts it: else one is made. */
const acceptableId = /^[\w\-=]{1,255}$/

/**
 * Gives every request an id, `c.var.requestId`, and its answer the same `X-Request-Id`: the
 * caller's own if it is acceptable, else a new UUID. The log line and problem answers carry it too.
 * Through `deps.headerAccess`, which on Node is cheaper than the Fetch API's `Headers`; not an
 * async function, as no work follows the rest of the request (an async layer costs every request).
 */
export const requestId: MiddlewareHandler<AppEnv> = (c, next) => {
  const { headerAccess } = c.get('deps')
  const sent = headerAccess.read(c, 'x-request-id')
  const id = sent !== undefined && acceptableId.test(sent) ? sent : crypto.randomUUID()
  c.set('requestId', id)
  headerAccess.setOnAnswer(c, 'X-Request-Id', id)
  return next()
}
