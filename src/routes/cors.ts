import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'

/** Answer headers a page of another origin may read: what the API documents beside its bodies. */
const exposedHeaders = [
  'X-Request-Id',
  'Retry-After',
  'WWW-Authenticate',
  'Allow',
  'Location',
  'Content-Disposition',
  'Content-Range',
  'Accept-Ranges',
]

/**
 * Cross-origin requests from the pages of `origins` (`VAULT_CORS_ORIGINS`), through Hono's `cors`:
 * a preflight from one of them answers 204 with the methods and the headers asked for, and every
 * answer to them names the origin. Credentials are bearer tokens and API keys in headers, never
 * cookies, so no `Access-Control-Allow-Credentials`. A request from any other origin, or with no
 * `Origin`, passes untouched and gets no CORS header (a preflight then answers as before: 404 or
 * 405). Nothing at all when `origins` is empty.
 */
export function crossOrigin(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined
  const allowed = new Set(origins)
  const handler = cors({ origin: [...allowed], exposeHeaders: exposedHeaders, maxAge: 600 })
  return (c, next) => (allowed.has(c.req.header('origin') ?? '') ? handler(c, next) : next())
}
