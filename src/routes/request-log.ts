import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './app-env.js'
import { withoutSignedToken } from './signed/signed-path.js'

/** A declared `Content-Length`, as a number; undefined when absent (a chunked or streamed body). */
const declaredLength = (value: string | null | undefined) => (value ? Number(value) : undefined)

/**
 * One structured log line per request, with the request id that is also returned in
 * `X-Request-Id`, the signed-in user's id (absent for public paths and refused credentials), the
 * client address (the proxy's `X-Forwarded-For` entry when `VAULT_TRUST_PROXY` is on), the bytes
 * in and out where their length is declared (a streamed body's is not known when the line is
 * written), and the time to the answer. Only the path is logged, a signed link's token masked:
 * query strings and headers can carry secrets.
 * Health probes log at debug level so a container's liveness checks do not flood the log.
 */
export const requestLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now()
  await next()
  // `c.get`, not `c.var`: Hono builds an object of all the variables on each `c.var` read.
  const { logger, getClientAddress } = c.get('deps')
  const log = c.req.path.endsWith('/api/v1/health') && c.res.status < 500 ? logger.debug : logger.info
  log('request', {
    request_id: c.get('requestId'),
    method: c.req.method,
    path: withoutSignedToken(c.req.path),
    status: c.res.status,
    user_id: c.get('principal')?.userId,
    client_address: getClientAddress(c),
    bytes_in: declaredLength(c.req.header('content-length')),
    bytes_out: declaredLength(c.res.headers.get('content-length')),
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
  })
}
