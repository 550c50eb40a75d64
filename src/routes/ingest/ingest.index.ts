import type { Context } from 'hono'
import { VaultError } from '../../core/errors.js'
import { isArchiveName } from '../../core/ingest/archive-entries.js'
import { assertModelExists, type IngestResult, registerUpload, storeUpload } from '../../core/ingest/ingest.js'
import { storedForm } from '../../core/ingest/stored-form.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { ingestArchiveUpload } from './archive-ingest.js'
import { ingestRawRoute, ingestRoute } from './ingest.routes.js'
import { ingestFormFile, openUploadForm, refuseDeclaredOversize } from './multipart-ingest.js'

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

export const ingestRouter = createRouter()
  .openapi(ingestRoute, async (c) => {
    const form = await openUploadForm(c)
    const { filename, stream } = form.file
    if (!isArchiveName(filename)) return answer(c, (await ingestFormFile(c, form)).result)
    return ingestArchiveUpload(c, {
      body: stream,
      filename,
      modelId: async () => (await form.fields).model_id || undefined,
    })
  })
  .openapi(ingestRawRoute, async (c) => {
    const { deps, principal } = c.var
    const body = c.req.raw.body
    if (!body || (c.req.header('content-length') === undefined && c.req.header('transfer-encoding') === undefined)) {
      throw new VaultError(
        411,
        'length_required',
        'Length Required',
        'Send the file as the request body, with Content-Length.',
      )
    }
    refuseDeclaredOversize(c, 0)
    const { model_id: modelId } = c.req.valid('query')
    if (modelId) await assertModelExists(deps, modelId)
    const { filename } = c.req.valid('param')
    if (isArchiveName(filename)) return ingestArchiveUpload(c, { body, filename, modelId: async () => modelId })
    const stored = await storeUpload(deps, storedForm(body, filename), deps.maxUploadBytes, c.req.raw.signal)
    return answer(
      c,
      await deps.registrations.run(() =>
        registerUpload(deps, stored, { filename, modelId, uploadedBy: principal.userId }),
      ),
    )
  })
