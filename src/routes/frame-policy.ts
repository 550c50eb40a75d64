/**
 * Headers that keep the vault's pages (the web UI, the API reference) out of frames of other
 * sites, so no page elsewhere can lay the vault under its own buttons (clickjacking). Pages of the
 * same origin may still frame them: a Hono app that mounts the vault can show it in a frame.
 * `X-Frame-Options` is for browsers older than CSP's `frame-ancestors`.
 */
export const sameOriginFramesOnly = {
  'Content-Security-Policy': "frame-ancestors 'self'",
  'X-Frame-Options': 'SAMEORIGIN',
} as const
