import type { Context } from 'hono'
import type { AppEnv } from './app-env.js'

/**
 * The vault's absolute base URL, for links that leave the browser (a slicer fetches them):
 * `VAULT_PUBLIC_URL` when set, else the request's own origin, followed by the mount prefix.
 */
export function vaultBaseUrl(c: Context<AppEnv>): string {
  const mountPrefix = c.req.path.slice(0, Math.max(0, c.req.path.indexOf('/api/v1/')))
  const origin = c.var.deps.publicUrl?.replace(/\/+$/, '') ?? new URL(c.req.url).origin
  return `${origin}${mountPrefix}`
}
