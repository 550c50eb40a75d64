import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { CheckPackageMetadata } from '../../core/ingest/datapackage.js'
import { type ArchiveResult, ingestArchive } from '../../core/ingest/ingest-archive.js'
import type { ScratchCopy } from '../../core/ingest/scratch-copy.js'
import { type AppEnv, requestDeps } from '../app-env.js'
import { collectionName } from '../collections/collections.routes.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { editableModelFields } from '../models/models.routes.js'
import { validationFailure } from '../problem.js'

/** The parts of a datapackage.json the vault reads for a model, by the rules of a model edit. */
const packageDescriptor = z.looseObject({
  title: editableModelFields.name.optional(),
  description: editableModelFields.description.optional(),
  keywords: editableModelFields.tags.optional(),
  contributors: z
    .array(z.looseObject({ title: editableModelFields.creator.optional() }))
    .max(50)
    .optional(),
  sources: z
    .array(z.looseObject({ path: editableModelFields.source_url.optional() }))
    .max(50)
    .optional(),
  licenses: z
    .array(z.looseObject({ name: editableModelFields.license.optional() }))
    .max(50)
    .optional(),
  model_vault: z.looseObject({ collections: z.array(collectionName).max(50).optional() }).optional(),
})

const checkPackageMetadata: CheckPackageMetadata = (descriptor, source) => {
  const parsed = packageDescriptor.safeParse(descriptor)
  if (!parsed.success) throw validationFailure(parsed.error, source)
  const { title, description, keywords, model_vault, contributors, sources, licenses } = parsed.data
  return {
    name: title,
    description,
    tags: keywords,
    collections: model_vault?.collections,
    creator: contributors?.find((contributor) => contributor.title)?.title ?? undefined,
    sourceUrl: sources?.find((source) => source.path)?.path ?? undefined,
    license: licenses?.find((license) => license.name)?.name ?? undefined,
  }
}

/**
 * Unpacks an uploaded zip, received onto scratch disk (`receiveUpload`, bounded by
 * `VAULT_MAX_UPLOAD_BYTES`): each entry is ingested as a file, and the copy is removed
 * afterwards, so the zip's own bytes never stay in the vault.
 */
export async function ingestReceivedArchive(
  c: Context<AppEnv>,
  copy: ScratchCopy,
  upload: { filename: string; modelId: string | undefined; modelName: string | undefined; folder: string | undefined },
) {
  const { principal } = c.var
  try {
    const result = await ingestArchive(requestDeps(c), copy.source, {
      filename: upload.filename,
      modelId: upload.modelId,
      modelName: upload.modelName,
      folder: upload.folder,
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
