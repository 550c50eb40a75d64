import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { VaultError } from '../../core/errors.js'
import type { AppEnv } from '../app-env.js'
import { acceptedEncodings, encodedAnswer } from '../encoded-answer.js'
import { vaultProblem } from '../problem.js'

/** Paths the UI never answers, whatever the `Accept` header says. */
const reservedPath = /^\/(api|docs|redoc|openapi\.json)(\/|$)/

/** The placeholder in `web/index.html` that each answer replaces with the vault's real base. */
const basePlaceholder = '<base href="/" />'

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The web UI at `/`, from `deps.getUiAsset`, answering only GETs that no route answered (so it
 * shadows nothing, and adds no GET route that would turn other methods' 404s into 405s). Vite's
 * hashed files under `/assets/` are cached for a year as immutable; `index.html` is never reused
 * without asking; each is served as the build's Brotli or gzip copy when the client takes one. A page request (`Accept: text/html`) for a path that is no file gets `index.html`,
 * so deep links work with client-side routing; `/api`, `/docs`, `/redoc` and `/openapi.json` are
 * never answered here; `/favicon.ico` is the UI's `favicon.svg`. The page's `<base href>` names the vault's mount point (and
 * `VAULT_PUBLIC_URL`), so the build's relative asset URLs and the client's `api/v1` resolve there
 * from any depth.
 */
export function registerUi(app: OpenAPIHono<AppEnv>): void {
  app.use(async (c, next) => {
    // `<mount prefix>/*`, read before `next()` moves the route index on; empty unless mounted.
    const prefix = c.req.routePath.replace(/\/?\*$/, '')
    await next()
    if (c.res.status !== 404 || c.error || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return
    const path = c.req.path.slice(prefix.length) || '/'
    if (reservedPath.test(path)) return
    const answer = await uiAnswer(c, path.slice(1), prefix)
    if (!answer) return
    const requestId = c.res.headers.get('x-request-id')
    if (requestId) answer.headers.set('X-Request-Id', requestId)
    // Replace rather than assign over: Hono's setter would copy the 404's `Cache-Control: no-store` onto ours.
    c.res = undefined
    c.res = answer
  })
}

async function uiAnswer(c: Context<AppEnv>, file: string, prefix: string): Promise<Response | undefined> {
  const { getUiAsset, publicUrl } = c.var.deps
  if (file !== '' && file !== 'index.html') {
    // Compressed when the build holds a precompressed copy the client takes (Brotli, else gzip).
    const asset = await getUiAsset(file, acceptedEncodings(c.req.header('accept-encoding')))
    if (asset) {
      const cacheControl = file.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'
      return encodedAnswer(asset, { 'Content-Type': asset.type, 'Cache-Control': cacheControl })
    }
    if (file === 'favicon.ico') return faviconAnswer(c)
    if (file.startsWith('assets/') || !c.req.header('accept')?.includes('text/html')) return undefined
  }
  const index = await getUiAsset('index.html')
  if (!index) {
    return vaultProblem(
      c,
      new VaultError(
        'ui_not_built',
        'The web UI is not built on this server: run `npm run build`, then restart. The API is at /api/v1, its reference at /docs.',
      ),
    )
  }
  const base = `${publicUrl?.replace(/\/$/, '') ?? ''}${prefix}/`
  const html = new TextDecoder().decode(index.body).replace(basePlaceholder, `<base href="${escapeAttribute(base)}" />`)
  return new Response(html, {
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
  })
}

/**
 * Browsers ask for `/favicon.ico` on pages that name no icon (the API reference): the UI's own
 * `favicon.svg` answers it (as SVG, which browsers take whatever the name), and without a UI
 * build a 204, so the browser stops asking and no 404 fills the log.
 */
async function faviconAnswer(c: Context<AppEnv>): Promise<Response> {
  const cacheControl = 'public, max-age=86400'
  const icon = await c.var.deps.getUiAsset('favicon.svg', acceptedEncodings(c.req.header('accept-encoding')))
  if (!icon) return new Response(null, { status: 204, headers: { 'Cache-Control': cacheControl } })
  return encodedAnswer(icon, { 'Content-Type': icon.type, 'Cache-Control': cacheControl })
}
