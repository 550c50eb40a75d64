import type { Context } from 'hono'
import { VaultError } from '../../core/errors.js'
import { assertModelExists, type IngestResult } from '../../core/ingest/ingest.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { ingestReceivedArchive } from './archive-ingest.js'
import { ingestRawRoute, ingestRoute } from './ingest.routes.js'
import {
  keepUpload,
  type ReceivedUpload,
  receiveInTurn,
  receiveUploadForm,
  refuseDeclaredOversize,
  registerStored,
} from './multipart-ingest.js'

function answer(c: Context<AppEnv>, result: IngestResult) {
  const body = {
    kind: 'file' as const,
    duplicate: result.duplicate,
    model_created: result.modelCreated,
    file: presentFile(c, result.file),
    model: presentModel(c, result.model),
  }
  return result.duplicate ? c.json(body, 200) : c.json(body, 201)
}

const lengthRequired = () =>
  new VaultError(411, 'length_required', 'Length Required', 'Send the file as the request body, with Content-Length.')

/** Ingests a received upload: a zip's entries, or the file itself. */
async function ingestReceived(
  c: Context<AppEnv>,
  upload: ReceivedUpload,
  target: { filename: string; modelId: string | undefined },
) {
  if (upload.kind === 'archive') return ingestReceivedArchive(c, upload.copy, target)
  return answer(c, await registerStored(c, upload.stored, target))
}

export const ingestRouter = createRouter()
  .openapi(ingestRoute, async (c) => {
    const { kept, filename, fields } = await receiveUploadForm(c, (bytes, name) => keepUpload(c, bytes, name))
    return ingestReceived(c, kept, { filename, modelId: fields.model_id || undefined })
  })
  .openapi(ingestRawRoute, async (c) => {
    const { model_id: modelId } = c.req.valid('query')
    const { filename } = c.req.valid('param')
    // What the headers and the query already refuse is refused without waiting for a turn.
    if (c.req.header('content-length') === undefined && c.req.header('transfer-encoding') === undefined)
      throw lengthRequired()
    refuseDeclaredOversize(c, 0)
    if (modelId) await assertModelExists(c.var.deps, modelId)
    const upload = await receiveInTurn(c, async () => {
      const body = c.req.raw.body
      if (!body) throw lengthRequired()
      return keepUpload(c, body, filename)
    })
    return ingestReceived(c, upload, { filename, modelId })
  })
