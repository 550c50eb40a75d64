import type { Context } from 'hono'
import { type ModelPackage, packageModel, packageModels } from '../../core/packages/model-package.js'
import { checkPackageLink, issuePackageLink } from '../../core/packages/package-links.js'
import { createRouter } from '../app-env.js'
import { contentDisposition } from '../blob-response.js'
import { signedPackagePath } from '../signed/signed-path.js'
import { vaultBaseUrl } from '../vault-url.js'
import {
  createPackageLinkRoute,
  downloadSignedPackageRoute,
  getModelPackageRoute,
  packageModelsRoute,
} from './packages.routes.js'

export const packagesRouter = createRouter()
  .openapi(getModelPackageRoute, async (c) => zipResponse(c, await packageModel(c.var.deps, c.req.valid('param').id)))
  .openapi(packageModelsRoute, async (c) => zipResponse(c, await packageModels(c.var.deps, c.req.valid('json').ids)))
  .openapi(createPackageLinkRoute, async (c) => {
    const link = await issuePackageLink(c.var.deps, c.req.valid('param').id, c.var.principal.userId)
    return c.json(
      {
        url: `${vaultBaseUrl(c)}${signedPackagePath(link.modelId, link.token, link.fileName)}`,
        expires_at: link.expiresAt.toISOString(),
        expires_in: c.var.deps.downloadLinkTtlSeconds,
      },
      200,
    )
  })
  .openapi(downloadSignedPackageRoute, async (c) => {
    const { id, token } = c.req.valid('param')
    await checkPackageLink(c.var.deps, id, token)
    return zipResponse(c, await packageModel(c.var.deps, id))
  })

function zipResponse(c: Context, zip: ModelPackage) {
  return c.body(zip.stream, 200, {
    'Content-Type': 'application/zip',
    'Content-Length': String(zip.length),
    'Content-Disposition': contentDisposition(zip.fileName),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
}
