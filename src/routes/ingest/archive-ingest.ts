import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { CheckPackageMetadata } from '../../core/ingest/datapackage.js'
import { receiveUpload } from '../../core/ingest/ingest.js'
import { type ArchiveResult, ingestArchive } from '../../core/ingest/ingest-archive.js'
import type { AppEnv } from '../app-env.js'
import { collectionName } from '../collections/collections.routes.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { editableModelFields } from '../models/models.routes.js'
import { validationFailure } from '../problem.js'

/** The parts of a datapackage.json the vault reads for a model, by the rules of a model edit. */
const packageDescriptor = z.looseObject({
  title: editableModelFields.name.optional(),
  description: editableModelFields.description.optional(),
  keywords: editableModelFields.tags.optional(),
  model_vault: z.looseObject({ collections: z.array(collectionName).max(50).optional() }).optional(),
})

const checkPackageMetadata: CheckPackageMetadata = (descriptor, source) => {
  const parsed = packageDescriptor.safeParse(descriptor)
  if (!parsed.success) throw validationFailure(parsed.error, source)
  const { title, description, keywords, model_vault } = parsed.data
  return { name: title, description, tags: keywords, collections: model_vault?.collections }
}

/**
 * Unpacks an uploaded zip: held on scratch disk while it is read (bounded by
 * `VAULT_MAX_UPLOAD_BYTES`, removed afterwards, so its own bytes never stay in the vault), then
 * each entry ingested as a file. `modelId` is awaited once the body is in: a multipart form may
 * send the field after the file.
 */
export async function ingestArchiveUpload(
  c: Context<AppEnv>,
  upload: { body: ReadableStream<Uint8Array>; filename: string; modelId: () => Promise<string | undefined> },
) {
  const { deps, principal } = c.var
  const copy = await receiveUpload(upload.body, deps.maxUploadBytes, c.req.raw.signal, deps.writeScratchCopy)
  try {
    const result = await ingestArchive(deps, copy.source, {
      filename: upload.filename,
      modelId: await upload.modelId(),
      uploadedBy: principal.userId,
      checkMetadata: checkPackageMetadata,
      signal: c.req.raw.signal,
    })
    return c.json(presentArchive(c, result), result.stored > 0 || result.models.some((m) => m.modelCreated) ? 201 : 200)
  } finally {
    await copy.dispose()
  }
}

function presentArchive(c: Context, result: ArchiveResult) {
  return {
    kind: 'archive' as const,
    models: result.models.map(({ model, modelCreated }) => ({
      model: presentModel(c, model),
      model_created: modelCreated,
    })),
    entries: result.entries.map((entry) => ({
      path: entry.path,
      outcome: entry.outcome,
      reason: entry.reason,
      file: entry.file && presentFile(c, entry.file),
      model_id: entry.modelId,
    })),
    stored: result.stored,
    duplicates: result.duplicates,
    skipped: result.skipped,
  }
}
