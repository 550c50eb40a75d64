import { redeemDownloadLink } from '../../core/downloads/download-links.js'
import { createRouter } from '../app-env.js'
import { fileContentResponse } from '../files/files.index.js'
import { downloadSignedFileRoute } from './signed.routes.js'

export const signedRouter = createRouter().openapi(downloadSignedFileRoute, async (c) => {
  const { id, token } = c.req.valid('param')
  return fileContentResponse(c, await redeemDownloadLink(c.var.deps, id, token))
})
