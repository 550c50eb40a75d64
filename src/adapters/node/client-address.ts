import { getConnInfo } from '@hono/node-server/conninfo'
import type { GetClientAddress } from '../../routes/app-env.js'

/**
 * The caller's address for login throttling. Behind a reverse proxy every request comes from
 * the proxy, so with `trustProxy` the address the proxy appended last to `X-Forwarded-For`
 * is used; without it that header is ignored, since any client can send one.
 */
export function createClientAddress(trustProxy: boolean): GetClientAddress {
  return (c) => {
    if (trustProxy) {
      const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim()
      if (forwarded) return forwarded
    }
    try {
      return getConnInfo(c).remote.address
    } catch {
      // Not served by @hono/node-server (e.g. `app.request()` in tests): no socket to ask.
      return undefined
    }
  }
}
