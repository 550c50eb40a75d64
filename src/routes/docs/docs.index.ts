import { swaggerUI } from '@hono/swagger-ui'
import type { OpenAPIHono } from '@hono/zod-openapi'
import { compress } from 'hono/compress'
import type { DocsAssetName } from '../../core/ui-files.js'
import { apiKeySchemeName, bearerSchemeName } from '../access.js'
import type { AppEnv } from '../app-env.js'
import { acceptedEncodings, encodedAnswer } from '../encoded-answer.js'
import { routeNotFound } from '../problem.js'
import { buildOpenApiDocument } from './openapi-document.js'

const assetTypes: Record<DocsAssetName, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'redoc.standalone.js': 'text/javascript; charset=utf-8',
}

/** Starts Swagger UI on `/docs`: the document beside it, authorisation kept across reloads, no remote validator. */
const swaggerInit = `window.onload = () => {
  window.ui = SwaggerUIBundle({
    dom_id: '#swagger-ui',
    url: 'openapi.json',
    persistAuthorization: true,
    validatorUrl: 'none',
  })
}
`

const isAssetName = (name: string): name is DocsAssetName => Object.hasOwn(assetTypes, name)

/**
 * `GET /openapi.json` (OpenAPI 3.1 generated from the route definitions), Swagger UI at
 * `/docs` and ReDoc at `/redoc`. The viewers' scripts come from installed packages through
 * `deps.getDocsAsset`, never from a CDN, so the reference works offline. Every URL in the
 * pages is relative, so the viewers keep working when the app is mounted under a prefix. The
 * document and the viewers' files are sent compressed to clients that take it (the viewers' files
 * compressed once, ahead of time or on first use, the document as it is written).
 */
export function registerDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', bearerSchemeName, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An access token from POST /api/v1/auth/login (or /auth/refresh), or an API key (`mvk_…`). In Swagger UI: log in, copy `access_token`, press Authorize. The names an operation lists are API key scopes, any one of which will do; `full` holds them all, and so does the access token of a password sign-in.',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', apiKeySchemeName, {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description:
      'An API key (`mvk_…`) from POST /api/v1/api-keys, as OctoPrint clients and slicers send it. The names an operation lists are the key scopes, any one of which will do; `full` holds them all.',
  })

  // Built for each request (the servers entry follows the mount point) and compressed as it goes:
  // about 330 KB as it is, a tenth of that in gzip.
  app.get('/openapi.json', compress(), (c) => {
    const { service, publicUrl, printers } = c.var.deps
    // The mount prefix, if another Hono app mounted this one, is what precedes our own path.
    const basePath = c.req.path.slice(0, -'/openapi.json'.length)
    const serverUrl = publicUrl ? `${publicUrl}${basePath}` : basePath || '/'
    return c.json(
      buildOpenApiDocument(app, {
        version: service.version,
        serverUrl,
        printerProviders: printers.providers,
      }),
    )
  })

  app.get(
    '/docs',
    swaggerUI({
      title: 'model-vault API',
      url: 'openapi.json',
      baseUrl: 'docs/assets',
      // Swagger UI's own page starts it from an inline script, which the Content-Security-Policy
      // refuses; this one starts it from a file of the vault.
      manuallySwaggerUIHtml: (asset) => `<div id="swagger-ui"></div>
${asset.css.map((url) => `<link rel="stylesheet" href="${url}" />`).join('\n')}
${asset.js.map((url) => `<script src="${url}"></script>`).join('\n')}
<script src="docs/assets/swagger-init.js"></script>`,
    }),
  )

  // ReDoc's footer shows a logo from Redocly's CDN; the served script has that address removed
  // (see the runtime's docs assets), so readers' browsers contact no third party.
  app.get('/redoc', (c) =>
    c.html(`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>model-vault API</title>
  </head>
  <body>
    <redoc spec-url="openapi.json"></redoc>
    <script src="docs/assets/redoc.standalone.js"></script>
  </body>
</html>`),
  )

  app.get('/docs/assets/swagger-init.js', (c) =>
    c.body(swaggerInit, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  )

  // @hono/swagger-ui asks for `<baseUrl>/swagger-ui-dist/<file>`; ReDoc's script sits beside it.
  app.on('GET', ['/docs/assets/:name', '/docs/assets/swagger-ui-dist/:name'], async (c) => {
    const name = c.req.param('name')
    if (!isAssetName(name)) return routeNotFound(c)
    const asset = await c.var.deps.getDocsAsset(name, acceptedEncodings(c.req.header('accept-encoding')))
    return encodedAnswer(asset, { 'Content-Type': assetTypes[name], 'Cache-Control': 'public, max-age=86400' })
  })
}
