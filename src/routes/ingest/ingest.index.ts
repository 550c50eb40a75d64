import type { Context } from 'hono'
import { unprocessable, VaultError } from '../../core/errors.js'
import { assertModelExists, type IngestResult, registerUpload, storeUpload } from '../../core/ingest/ingest.js'
import { storedForm } from '../../core/ingest/stored-form.js'
import { payloadTooLarge } from '../../core/ingest/upload-limit.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { ingestRawRoute, ingestRoute } from './ingest.routes.js'

/** Room for multipart boundaries and headers around the file when checking Content-Length up front. */
const multipartOverheadBytes = 1024 * 1024

/** Refuses an upload whose declared length is already over the limit, before reading any of it. */
function refuseDeclaredOversize(c: Context<AppEnv>, overhead: number): void {
  const declared = Number(c.req.header('content-length'))
  if (declared > c.var.deps.maxUploadBytes + overhead) throw payloadTooLarge(c.var.deps.maxUploadBytes)
}

function answer(c: Context<AppEnv>, result: IngestResult) {
  const body = {
    duplicate: result.duplicate,
    model_created: result.modelCreated,
    file: presentFile(c, result.file),
    model: presentModel(c, result.model),
  }
  return result.duplicate ? c.json(body, 200) : c.json(body, 201)
}

export const ingestRouter = createRouter()
  .openapi(ingestRoute, async (c) => {
    const { deps, principal } = c.var
    if (!/^multipart\/form-data\s*;/i.test(c.req.header('content-type') ?? '')) {
      throw new VaultError(
        415,
        'unsupported_media_type',
        'Unsupported Media Type',
        'Send the file as multipart/form-data in the field "file" (or PUT the raw bytes to /api/v1/ingest/{filename}).',
      )
    }
    refuseDeclaredOversize(c, multipartOverheadBytes)
    const upload = deps.readMultipart(c.req.raw, { maxFileBytes: deps.maxUploadBytes })
    const file = await upload.file
    if (!file) {
      await upload.fields
      throw unprocessable('No file: send one in the multipart field "file".', [
        { path: 'body.file', message: 'is required' },
      ])
    }
    if (file.fieldsBefore.model_id) await assertModelExists(deps, file.fieldsBefore.model_id)
    const stored = await storeUpload(
      deps,
      storedForm(file.stream, file.filename),
      deps.maxUploadBytes,
      c.req.raw.signal,
    )
    const fields = await upload.fields
    return answer(
      c,
      await deps.registrations.run(() =>
        registerUpload(deps, stored, {
          filename: file.filename,
          modelId: fields.model_id || undefined,
          uploadedBy: principal.userId,
        }),
      ),
    )
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
    const stored = await storeUpload(deps, storedForm(body, filename), deps.maxUploadBytes, c.req.raw.signal)
    return answer(
      c,
      await deps.registrations.run(() =>
        registerUpload(deps, stored, { filename, modelId, uploadedBy: principal.userId }),
      ),
    )
  })
