import type { Context } from 'hono'
import { type ModelPackage, packageModel, packageModels } from '../../core/packages/model-package.js'
import { createRouter } from '../app-env.js'
import { contentDisposition } from '../blob-response.js'
import { getModelPackageRoute, packageModelsRoute } from './packages.routes.js'

export const packagesRouter = createRouter()
  .openapi(getModelPackageRoute, async (c) => zipResponse(c, await packageModel(c.var.deps, c.req.valid('param').id)))
  .openapi(packageModelsRoute, async (c) => zipResponse(c, await packageModels(c.var.deps, c.req.valid('json').ids)))

function zipResponse(c: Context, zip: ModelPackage) {
  return c.body(zip.stream, 200, {
    'Content-Type': 'application/zip',
    'Content-Length': String(zip.length),
    'Content-Disposition': contentDisposition(zip.fileName),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
}
