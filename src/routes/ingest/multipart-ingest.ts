import type { Context } from 'hono'
import type { StoredContent } from '../../core/blobs/put-content-addressed.js'
import { unprocessable, VaultError } from '../../core/errors.js'
import { isArchiveName } from '../../core/ingest/archive-entries.js'
import {
  assertModelExists,
  type IngestResult,
  receiveUpload,
  registerUpload,
  storeUpload,
} from '../../core/ingest/ingest.js'
import type { MultipartFile } from '../../core/ingest/multipart.js'
import type { ScratchCopy } from '../../core/ingest/scratch-copy.js'
import { storedForm } from '../../core/ingest/stored-form.js'
import { payloadTooLarge } from '../../core/ingest/upload-limit.js'
import { type AppEnv, requestDeps } from '../app-env.js'

/** Room for multipart boundaries and headers around the file when checking Content-Length up front. */
const multipartOverheadBytes = 1024 * 1024

/** Refuses an upload whose declared length is already over the limit, before reading any of it. */
export function refuseDeclaredOversize(c: Context<AppEnv>, overhead: number): void {
  const declared = Number(c.req.header('content-length'))
  if (declared > c.var.deps.maxUploadBytes + overhead) throw payloadTooLarge(c.var.deps.maxUploadBytes)
}

/** An upload's bytes once received: staged in the blob store, or (a zip to unpack) copied to scratch disk. */
export type ReceivedUpload = { kind: 'file'; stored: StoredContent } | { kind: 'archive'; copy: ScratchCopy }

/**
 * Runs `receive`, everything that reads the request's body, in one of the app's `uploadBodies`
 * slots: the body is not touched before the slot is held, so a waiting upload stays in the
 * kernel's socket buffers. The slot is freed once the bytes are staged, before they are read for
 * their metadata (`registrations` bounds that).
 */
export function receiveInTurn<T>(c: Context<AppEnv>, receive: () => Promise<T>): Promise<T> {
  return c.var.deps.uploadBodies.run(receive)
}

/**
 * Stages `bytes`, an upload named `filename`, in the blob store as the vault stores it
 * (`storedForm`: G-code redacted), hashed and bounded by `VAULT_MAX_UPLOAD_BYTES`.
 */
export function stageFile(c: Context<AppEnv>, bytes: ReadableStream<Uint8Array>, filename: string) {
  const { deps } = c.var
  return storeUpload(deps, storedForm(bytes, filename), deps.maxUploadBytes, c.req.raw.signal)
}

/** Receives an upload: a zip to scratch disk (its entries are ingested from there), anything else staged (`stageFile`). */
export async function keepUpload(
  c: Context<AppEnv>,
  bytes: ReadableStream<Uint8Array>,
  filename: string,
): Promise<ReceivedUpload> {
  const { deps } = c.var
  if (!isArchiveName(filename)) return { kind: 'file', stored: await stageFile(c, bytes, filename) }
  return {
    kind: 'archive',
    copy: await receiveUpload(bytes, deps.maxUploadBytes, c.req.raw.signal, deps.writeScratchCopy),
  }
}

/**
 * Receives the multipart upload of the request in turn (`receiveInTurn`), its file part handed to
 * `keep`: refuses a body that is not multipart (415), one declared over `VAULT_MAX_UPLOAD_BYTES`
 * (413), one without the field `file`, and a `model_id` sent before the file that names no model
 * (422). Answers what `keep` made of the file, its name and every text field of the form.
 */
export async function receiveUploadForm<T>(
  c: Context<AppEnv>,
  keep: (bytes: ReadableStream<Uint8Array>, filename: string) => Promise<T>,
): Promise<{ kept: T; filename: string; fields: Record<string, string> }> {
  // What the headers already refuse is refused without waiting for a turn.
  if (!/^multipart\/form-data\s*;/i.test(c.req.header('content-type') ?? '')) {
    throw new VaultError(
      'unsupported_media_type',
      'Send the file as multipart/form-data in the field "file" (or PUT the raw bytes to /api/v1/ingest/{filename}).',
    )
  }
  refuseDeclaredOversize(c, multipartOverheadBytes)
  return receiveInTurn(c, async () => {
    const { file, fields } = await openUploadForm(c)
    const kept = await keep(file.stream, file.filename)
    // The file's stream ends only once the whole form is read, so the fields are in.
    return { kept, filename: file.filename, fields: await fields }
  })
}

async function openUploadForm(
  c: Context<AppEnv>,
): Promise<{ file: MultipartFile; fields: Promise<Record<string, string>> }> {
  const { deps } = c.var
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
 * Makes staged bytes a file of the vault (read for metadata and thumbnail, deduplicated) for the
 * signed-in caller, attached to `modelId` when given, or making a model named `modelName`; at
 * most `registrations` at once.
 */
export function registerStored(
  c: Context<AppEnv>,
  stored: StoredContent,
  upload: {
    filename: string
    modelId: string | undefined
    modelName?: string | undefined
    folder?: string | undefined
  },
): Promise<IngestResult> {
  const { principal } = c.var
  const deps = requestDeps(c)
  return deps.registrations.run(stored.size, () =>
    registerUpload(deps, stored, {
      filename: upload.filename,
      uploadedBy: principal.userId,
      ...(upload.modelId !== undefined ? { modelId: upload.modelId } : {}),
      ...(upload.modelName !== undefined ? { newModelName: upload.modelName } : {}),
      ...(upload.folder !== undefined ? { folder: upload.folder } : {}),
    }),
  )
}
