import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../app-env.js'
import { problem } from '../problem.js'
import { acceptedEncodings } from './accepted-encodings.js'

/**
 * The body is already encoded as its `Content-Encoding` says. Workers (workerd) would otherwise
 * encode it again, sending gzip around the Brotli file; other runtimes ignore the field.
 */
const alreadyEncoded = { encodeBody: 'manual' } as ResponseInit

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
 * never answered here. The page's `<base href>` names the vault's mount point (and
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
      const headers = new Headers({
        'Content-Type': asset.type,
        'Cache-Control': cacheControl,
        Vary: 'Accept-Encoding',
      })
      if (!asset.encoding) return new Response(asset.body, { headers })
      headers.set('Content-Encoding', asset.encoding)
      return new Response(asset.body, { headers, ...alreadyEncoded })
    }
    if (file.startsWith('assets/') || !c.req.header('accept')?.includes('text/html')) return undefined
  }
  const index = await getUiAsset('index.html')
  if (!index) {
    return problem(c, {
      status: 404,
      code: 'ui_not_built',
      title: 'Not Found',
      detail:
        'The web UI is not built on this server: run `npm run build`, then restart. The API is at /api/v1, its reference at /docs.',
    })
  }
  const base = `${publicUrl?.replace(/\/$/, '') ?? ''}${prefix}/`
  const html = new TextDecoder().decode(index.body).replace(basePlaceholder, `<base href="${escapeAttribute(base)}" />`)
  return new Response(html, {
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
  })
}
