import type { MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'

/**
 * The browser-facing protections on every answer (the web UI, the API reference pages, the API),
 * through Hono's `secure-headers`:
 *
 * - A Content-Security-Policy the pages satisfy as built: scripts, styles, fonts and API calls
 *   from the vault's own origin only (and `VAULT_PUBLIC_URL`'s, where that differs); inline
 *   styles, which the UI's component library, Swagger UI and ReDoc set; images also from `data:`
 *   and `blob:` (thumbnails are shown from object URLs); no plugins, no inline or remote scripts.
 * - `frame-ancestors 'self'` and `X-Frame-Options: SAMEORIGIN` (for browsers older than CSP):
 *   no page of another site can lay the vault under its own buttons (clickjacking), while a page of
 *   the same origin may still frame it (a Hono app that mounts the vault can show it in a frame).
 * - `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (a signed download link
 *   never leaves in a `Referer`), and the cross-origin isolation headers.
 *
 * HSTS is left to the TLS-terminating proxy: the vault itself usually speaks plain HTTP.
 */
export function securityHeaders(publicUrl: string | undefined): MiddlewareHandler {
  const self = ["'self'", ...(publicUrl ? [new URL(publicUrl).origin] : [])]
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: self,
      scriptSrc: self,
      styleSrc: [...self, "'unsafe-inline'"],
      imgSrc: [...self, 'data:', 'blob:'],
      fontSrc: [...self, 'data:'],
      connectSrc: self,
      workerSrc: [...self, 'blob:'],
      objectSrc: ["'none'"],
      baseUri: self,
      formAction: self,
      frameAncestors: ["'self'"],
    },
    xFrameOptions: 'SAMEORIGIN',
    referrerPolicy: 'no-referrer',
    strictTransportSecurity: false,
  })
}
