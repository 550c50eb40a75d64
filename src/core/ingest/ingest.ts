import type { Kysely, Selectable } from 'kysely'
import { queueAnalysis } from '../analysis/analysis-queue.js'
import { putContentAddressed, type StoredContent } from '../blobs/put-content-addressed.js'
import type { Database, FilesTable, ModelsTable } from '../db/schema.js'
import { unprocessable, uploadAborted } from '../errors.js'
import { nameKey, slicedSourceKeys } from '../formats/name-keys.js'
import { confirmStoredContent, recordDuplicateUpload } from '../library/content-release.js'
import { roleOf } from '../library/file-roles.js'
import { type FileRecord, type ModelRecord, toFileRecord, toModelRecord } from '../library/records.js'
import { refreshModel } from '../library/refresh-model.js'
import { smallFileBytes } from './extractor.js'
import { cleanFilename, contentTypeOf, type FileFormat, formatOf, isMeshFormat } from './file-formats.js'
import { forgetRefusedContent, type Reading, readContent, readingOf } from './file-reading.js'
import type { IngestDeps } from './ingest-deps.js'
import { findGcodeModelForMesh, findModelByMesh, findModelForGcode } from './model-matching.js'
import { isModelReadme } from './model-plan.js'
import { registerProjectAttachments } from './project-attachments.js'
import { readmeDescription } from './readme-description.js'
import { limitBytes } from './upload-limit.js'

export interface IngestResult {
  /** True when the vault already held these bytes: nothing new was stored. */
  duplicate: boolean
  /** True when this upload made the model (rather than joining one that existed). */
  modelCreated: boolean
  file: FileRecord
  model: ModelRecord
}

/**
 * Streams an upload into the blob store under its SHA-256, failing with 413 past `maxBytes`.
 * `signal` is the client connection: if it drops, the pipe is torn down and the staged
 * bytes are discarded, so a half upload leaves nothing behind.
 */
export function storeUpload(
  deps: IngestDeps,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<StoredContent> {
  return receiveUpload(body, maxBytes, signal, (bytes) =>
    putContentAddressed(deps.blobs, deps.createSha256, bytes, { keepUpTo: smallFileBytes }),
  )
}

/**
 * Hands an upload to `keep` (which streams it somewhere), failing with 413 past `maxBytes`
 * and with 400 `upload_aborted` when the client goes away (`signal`) before the end.
 */
export async function receiveUpload<T>(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal | undefined,
  keep: (bytes: ReadableStream<Uint8Array>) => Promise<T>,
): Promise<T> {
  try {
    return await keep(body.pipeThrough(limitBytes(maxBytes), { signal }))
  } catch (error) {
    if (signal?.aborted) throw uploadAborted()
    throw error
  }
}

/**
 * Turns stored bytes into a file of a model, in `folder` of it. Known content is a no-op that
 * answers with the existing file: known in the model asked for, or anywhere in the vault when no
 * model is asked for. Otherwise the file is attached to: the model asked for, else a new model
 * named `newModelName` (then the file joins no model by its mesh or G-code), else (a sliced file:
 * G-code, `.gcode.3mf`) the model it was sliced from, else the model whose mesh it matches, else
 * a new model. Content held by another model becomes a file of this one too: one stored blob, a row per model, its
 * figures copied rather than read again (a remix keeps the original's mesh as its own part). A
 * unique index (model, content) settles races on a model; uploads that name no model take turns
 * choosing one, so of N concurrent uploads of the same new bytes one inserts and the rest answer
 * as duplicates.
 */
export async function registerUpload(
  deps: IngestDeps,
  stored: StoredContent,
  upload: {
    filename: string
    folder?: string
    modelId?: string
    newModelName?: string
    /** The id the new model takes (with `newModelName`): an upload that finds it made joins it. */
    newModelId?: string
    uploadedBy: string
  },
): Promise<IngestResult> {
  const { db } = deps.database
  deps.metrics?.countUpload(stored.size)
  deps.analysis.uploadArrived()
  const filename = cleanFilename(upload.filename)
  const format = formatOf(filename)
  const makesNamedModel = upload.modelId === undefined && upload.newModelName !== undefined
  // The model asked for by id; a named model of a chosen id may be there already.
  const askedModel = upload.modelId ?? (makesNamedModel ? upload.newModelId : undefined)
  const existing =
    makesNamedModel && askedModel === undefined ? undefined : await findExisting(db, stored.sha256, askedModel)
  if (existing) return existing
  if (upload.modelId !== undefined) await assertModelExists(deps, upload.modelId)
  if (stored.size === 0) {
    await forgetRefusedContent(deps, stored)
    throw unprocessable('The uploaded file is empty.', [{ path: 'body.file', message: 'is empty' }])
  }

  const heldElsewhere = await db
    .selectFrom('files')
    .selectAll()
    .where('sha256', '=', stored.sha256)
    .orderBy('created_at')
    .executeTakeFirst()
  const read = heldElsewhere ? readingOf(heldElsewhere) : await readContent(deps, format, stored)
  // A README at the top of a model describes a model that has no description yet.
  const readme = isModelReadme(upload.folder ?? '', filename) ? await readmeDescription(deps.blobs, stored) : undefined
  const now = deps.clock.now().toISOString()
  // Only a part that names no model is matched; the others go where they are told.
  const matches = upload.modelId === undefined && upload.newModelName === undefined && roleOf(format) === 'part'
  const fileOf = (modelId: string | undefined): Selectable<FilesTable> => ({
    id: crypto.randomUUID(),
    sha256: stored.sha256,
    size: stored.size,
    model_id:
      modelId ??
      (makesNamedModel
        ? (upload.newModelId ?? crypto.randomUUID())
        : roleOf(format) === 'part'
          ? crypto.randomUUID()
          : uuidOfHex(stored.sha256)),
    original_name: filename,
    name_key: nameKey(filename),
    folder: upload.folder ?? '',
    format,
    content_type: contentTypeOf(format, filename),
    ...read.figures,
    slicer: null,
    uploaded_by: upload.uploadedBy,
    created_at: now,
  })

  const inserted = await db
    .transaction()
    .execute(async (trx) => {
      // Choosing the model and storing the file are one turn, so a mesh and its G-code uploaded
      // together each see the other and meet on one model, on either database.
      if (matches) {
        await deps.database.dialect.takeTurnsMatchingModels(trx)
        // No index keeps content unique across models: the turn does, for uploads that name none.
        const first = await trx.selectFrom('files').select('id').where('sha256', '=', stored.sha256).executeTakeFirst()
        if (first) throw new LostRace()
      }
      const modelId = upload.modelId ?? (matches ? await matchingModel(trx, format, filename, read) : undefined)
      const file = fileOf(modelId)
      let modelCreated = false
      if (modelId === undefined) {
        const made = await trx
          .insertInto('models')
          .values({
            id: file.model_id,
            name: upload.newModelName ?? (read.title?.trim() || filename.replace(/\.[^.]+$/, '') || filename),
            created_by: upload.uploadedBy,
            created_at: now,
            updated_at: now,
            thumbnail_sha256: null,
            thumbnail_content_type: null,
          })
          // A concurrent upload of the same loose image or document, or of the same zip, made it first.
          .onConflict((oc) => oc.column('id').doNothing())
          .executeTakeFirst()
        modelCreated = Number(made.numInsertedOrUpdatedRows ?? 0) > 0
      }
      const result = await trx
        .insertInto('files')
        .values(file)
        // Another upload of the same content to the same model took the unique index first.
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst()
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) throw new LostRace()
      if (read.renderLater) await queueAnalysis(trx, { sha256: stored.sha256, format, now })
      if (read.objectNames) {
        const sources = slicedSourceKeys(read.objectNames, filename)
        if (sources.length > 0)
          await trx
            .insertInto('sliced_sources')
            .values(sources.map((name_key) => ({ file_id: file.id, name_key })))
            .execute()
      }
      await trx
        .updateTable('models')
        .set({ updated_at: now })
        .$if(file.thumbnail_sha256 !== null, (qb) =>
          qb.set((eb) => ({
            thumbnail_sha256: eb.fn.coalesce('thumbnail_sha256', eb.val(file.thumbnail_sha256)),
            thumbnail_content_type: eb.fn.coalesce('thumbnail_content_type', eb.val(file.thumbnail_content_type)),
          })),
        )
        // Conditional in the row's own update: of two READMEs at once, the first to commit describes it.
        .$if(readme !== undefined, (qb) =>
          qb.set((eb) => ({
            description: eb
              .case()
              .when('description', '=', '')
              .then(readme ?? '')
              .else(eb.ref('description'))
              .end(),
          })),
        )
        .where('id', '=', file.model_id)
        .execute()
      await refreshModel(trx, deps.database.dialect.search, file.model_id, now)
      return { file, modelCreated }
    })
    .catch((error: unknown) => {
      if (error instanceof LostRace) return undefined
      throw error
    })
  if (!inserted) {
    const winner = await findExisting(db, stored.sha256, askedModel)
    // Only a deletion of the winner's model in the moments since its commit leaves nothing to answer with.
    if (!winner) throw new Error('the upload that stored these bytes first was deleted meanwhile')
    return winner
  }
  const { file, modelCreated } = inserted
  await confirmStoredContent(deps, file, read)
  if (read.renderLater) deps.analysis.wake()
  if (heldElsewhere) await recordDuplicateUpload(db, file.size)
  const attachments =
    format === '3mf' && !heldElsewhere
      ? await registerProjectAttachments(
          deps,
          stored,
          { modelId: file.model_id, uploadedBy: upload.uploadedBy },
          registerUpload,
        )
      : 0
  deps.logger.info('file ingested', {
    file_id: file.id,
    model_id: file.model_id,
    format,
    size: file.size,
    new_model: modelCreated,
    ...(heldElsewhere ? { shared_with: heldElsewhere.model_id } : {}),
    ...(attachments > 0 ? { attachments } : {}),
  })
  return {
    duplicate: false,
    modelCreated,
    file: toFileRecord(file),
    model: toModelRecord(await getModelRow(db, file.model_id)),
  }
}

/**
 * A UUID-shaped id from a hex digest: the model a loose image or document (uploaded without
 * `model_id`) makes is named by its content, so concurrent uploads of it meet on one model and
 * the unique index of (model, content) lets one of them in.
 */
export const uuidOfHex = (hex: string) =>
  [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-')

/** Another upload of the same bytes committed its file row first. */
class LostRace extends Error {}

/** Checks a `model_id` (callers check it before storing anything when they know it up front). */
export async function assertModelExists(deps: Pick<IngestDeps, 'database'>, modelId: string): Promise<void> {
  const row = await deps.database.db.selectFrom('models').select('id').where('id', '=', modelId).executeTakeFirst()
  if (!row)
    throw unprocessable(`No model has the id ${modelId}.`, [{ path: 'body.model_id', message: 'no such model' }])
}

/**
 * The model an upload that names none joins: a mesh joins the model of the same mesh in any
 * format, else a model whose sliced file was sliced from it and that has no mesh yet; a sliced
 * file (G-code, `.gcode.3mf`) joins the model of the mesh it was sliced from, never one by its
 * geometry. Undefined: a new model.
 */
async function matchingModel(
  db: Kysely<Database>,
  format: FileFormat,
  filename: string,
  read: Reading,
): Promise<string | undefined> {
  if (read.objectNames) return findModelForGcode(db, read.objectNames, filename)
  if (!isMeshFormat(format) && format !== 'step') return undefined
  return (
    (read.mesh && isMeshFormat(format) ? await findModelByMesh(db, read.mesh) : undefined) ??
    findGcodeModelForMesh(db, filename)
  )
}

/** The file these bytes already are: in `modelId`, or anywhere when no model is named. */
async function findExisting(
  db: Kysely<Database>,
  sha256: string,
  modelId: string | undefined,
): Promise<IngestResult | undefined> {
  const row = await db
    .selectFrom('files')
    .selectAll()
    .where('sha256', '=', sha256)
    .$if(modelId !== undefined, (qb) => qb.where('model_id', '=', modelId ?? ''))
    .orderBy('created_at')
    .executeTakeFirst()
  // The model may have been deleted (with the file) since: then the content is new again.
  const model = row && (await db.selectFrom('models').selectAll().where('id', '=', row.model_id).executeTakeFirst())
  if (!row || !model) return undefined
  await recordDuplicateUpload(db, row.size)
  return { duplicate: true, modelCreated: false, file: toFileRecord(row), model: toModelRecord(model) }
}

function getModelRow(db: Kysely<Database>, id: string): Promise<Selectable<ModelsTable>> {
  return db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}
