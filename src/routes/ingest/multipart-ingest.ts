import type { Context } from 'hono'
import { unprocessable, VaultError } from '../../core/errors.js'
import { assertModelExists, type IngestResult, registerUpload, storeUpload } from '../../core/ingest/ingest.js'
import type { MultipartFile } from '../../core/ingest/multipart.js'
import { storedForm } from '../../core/ingest/stored-form.js'
import { payloadTooLarge } from '../../core/ingest/upload-limit.js'
import type { AppEnv } from '../app-env.js'

/** Room for multipart boundaries and headers around the file when checking Content-Length up front. */
const multipartOverheadBytes = 1024 * 1024

/** Refuses an upload whose declared length is already over the limit, before reading any of it. */
export function refuseDeclaredOversize(c: Context<AppEnv>, overhead: number): void {
  const declared = Number(c.req.header('content-length'))
  if (declared > c.var.deps.maxUploadBytes + overhead) throw payloadTooLarge(c.var.deps.maxUploadBytes)
}

/** A multipart upload whose `file` part has begun to arrive, checked before any of it is stored. */
export interface UploadForm {
  file: MultipartFile
  /** Every text field, once the whole body has been read. */
  fields: Promise<Record<string, string>>
}

/**
 * Opens the multipart upload of the request: refuses a body that is not multipart (415), one
 * declared over `VAULT_MAX_UPLOAD_BYTES` (413), one without the field `file`, and a `model_id`
 * sent before the file that names no model (422).
 */
export async function openUploadForm(c: Context<AppEnv>): Promise<UploadForm> {
  const { deps } = c.var
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
  return { file, fields: upload.fields }
}

/**
 * Streams the file of an upload form into the vault (hashed, deduplicated, bounded by
 * `VAULT_MAX_UPLOAD_BYTES`) for the signed-in caller, attached to the model named by a
 * `model_id` field when one is sent. Answers the stored file and every text field of the form.
 */
export async function ingestFormFile(
  c: Context<AppEnv>,
  form: UploadForm,
): Promise<{ result: IngestResult; fields: Record<string, string> }> {
  const { deps, principal } = c.var
  const { file } = form
  const stored = await storeUpload(deps, storedForm(file.stream, file.filename), deps.maxUploadBytes, c.req.raw.signal)
  const fields = await form.fields
  const result = await deps.registrations.run(() =>
    registerUpload(deps, stored, {
      filename: file.filename,
      modelId: fields.model_id || undefined,
      uploadedBy: principal.userId,
    }),
  )
  return { result, fields }
}
