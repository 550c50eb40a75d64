import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'
import { withoutSignedToken } from './signed/signed-path.js'

/**
 * One structured log line per request, with the request id that is also returned in
 * `X-Request-Id`. Only the path is logged, a signed link's token masked: query strings and headers
 * can carry secrets.
 * Health probes log at debug level so a container's liveness checks do not flood the log.
 */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now()
  await next()
  // `c.get`, not `c.var`: Hono builds an object of all the variables on each `c.var` read.
  const { logger } = c.get('deps')
  const log = c.req.path.endsWith('/api/v1/health') && c.res.status < 500 ? logger.debug : logger.info
  log('request', {
    request_id: c.get('requestId'),
    method: c.req.method,
    path: withoutSignedToken(c.req.path),
    status: c.res.status,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  })
}
