import type { Kysely, Selectable } from 'kysely'
import { putContentAddressed, type StoredContent, streamOf } from '../blobs/put-content-addressed.js'
import type { Database, FilesTable, ModelsTable } from '../db/schema.js'
import type { Deps } from '../deps.js'
import { unprocessable, uploadAborted, VaultError } from '../errors.js'
import { nameKey, slicedSourceKeys } from '../formats/name-keys.js'
import { FormatError } from '../formats/types.js'
import { confirmStoredContent, contentDeleted, recordDuplicateUpload } from '../library/content-release.js'
import { mediaFormats, roleOf } from '../library/file-roles.js'
import { type FileRecord, type ModelRecord, toFileRecord, toModelRecord } from '../library/records.js'
import { refreshModel } from '../library/refresh-model.js'
import type { Extracted } from './extract.js'
import { cleanFilename, contentTypeOf, type FileFormat, formatOf, isMeshFormat } from './file-formats.js'
import { findGcodeModelForMesh, findModelByMesh, findModelForGcode } from './model-matching.js'
import { registerProjectAttachments } from './project-attachments.js'
import { limitBytes } from './upload-limit.js'

export type IngestDeps = Pick<
  Deps,
  'database' | 'blobs' | 'thumbnails' | 'createSha256' | 'clock' | 'logger' | 'extractStoredFile' | 'metrics'
>

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
  return receiveUpload(body, maxBytes, signal, (bytes) => putContentAddressed(deps.blobs, deps.createSha256, bytes))
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
 * Turns stored bytes into a file of a model. Known content is a no-op that answers with the
 * existing file. Otherwise the file is read for its metadata and thumbnail and attached to:
 * the model asked for, else the model whose mesh it matches, else (G-code) the model it was
 * sliced from, else a new model (named `newModelName` when given: then the file joins no model by
 * its mesh or G-code, only the one asked for). A part (mesh, G-code, anything but an image or
 * document) is known anywhere in the vault; an image or document only on the model asked for (the
 * same logo or LICENSE may sit on many models: one row each, one stored blob), or anywhere when no
 * model is asked for. The unique indexes settle races: of N concurrent uploads of the same bytes,
 * one inserts and the rest answer as duplicates.
 */
export async function registerUpload(
  deps: IngestDeps,
  stored: StoredContent,
  upload: { filename: string; modelId?: string; newModelName?: string; uploadedBy: string },
): Promise<IngestResult> {
  const { db } = deps.database
  deps.metrics?.countUpload(stored.size)
  const filename = cleanFilename(upload.filename)
  const format = formatOf(filename)
  // A picture or document that names a new model makes it, whichever models hold the same bytes.
  const makesNamedModel = upload.modelId === undefined && upload.newModelName !== undefined
  const existing =
    makesNamedModel && roleOf(format) !== 'part'
      ? undefined
      : await findExisting(db, stored.sha256, format, upload.modelId)
  if (existing) return existing
  if (upload.modelId !== undefined) await assertModelExists(deps, upload.modelId)
  if (stored.size === 0) {
    await forgetRefusedContent(deps, stored)
    throw unprocessable('The uploaded file is empty.', [{ path: 'body.file', message: 'is empty' }])
  }

  const extracted = await extractOrRefuse(deps, format, stored)
  const thumbnail = extracted.thumbnail
    ? await putContentAddressed(deps.thumbnails, deps.createSha256, streamOf(extracted.thumbnail.bytes))
    : undefined
  const now = deps.clock.now().toISOString()
  // Only a part that names no model is matched; the others go where they are told.
  const matches = upload.modelId === undefined && upload.newModelName === undefined && roleOf(format) === 'part'
  const fileOf = (modelId: string | undefined): FilesTable => ({
    id: crypto.randomUUID(),
    sha256: stored.sha256,
    size: stored.size,
    model_id:
      modelId ?? (roleOf(format) === 'part' || makesNamedModel ? crypto.randomUUID() : modelIdOfContent(stored.sha256)),
    original_name: filename,
    name_key: nameKey(filename),
    format,
    content_type: contentTypeOf(format, filename),
    metadata: JSON.stringify(extracted.metadata),
    parse_warnings: JSON.stringify(extracted.warnings),
    mesh_triangles: extracted.mesh?.triangles ?? null,
    mesh_size_x: extracted.mesh?.size[0] ?? null,
    mesh_size_y: extracted.mesh?.size[1] ?? null,
    mesh_size_z: extracted.mesh?.size[2] ?? null,
    mesh_volume: extracted.mesh?.volume ?? null,
    thumbnail_sha256: thumbnail?.sha256 ?? null,
    thumbnail_content_type: extracted.thumbnail?.contentType ?? null,
    uploaded_by: upload.uploadedBy,
    created_at: now,
  })

  const inserted = await db
    .transaction()
    .execute(async (trx) => {
      // Choosing the model and storing the file are one turn, so a mesh and its G-code uploaded
      // together each see the other and meet on one model, on either database.
      if (matches) await deps.database.dialect.takeTurnsMatchingModels(trx)
      const modelId = upload.modelId ?? (matches ? await matchingModel(trx, format, filename, extracted) : undefined)
      const file = fileOf(modelId)
      const newModel =
        modelId === undefined
          ? {
              id: file.model_id,
              name: upload.newModelName ?? (extracted.title?.trim() || filename.replace(/\.[^.]+$/, '') || filename),
            }
          : undefined
      if (newModel) {
        await trx
          .insertInto('models')
          .values({
            id: newModel.id,
            name: newModel.name,
            created_by: upload.uploadedBy,
            created_at: now,
            updated_at: now,
            thumbnail_sha256: null,
            thumbnail_content_type: null,
          })
          // A concurrent upload of the same loose image or document made its model first.
          .onConflict((oc) => oc.column('id').doNothing())
          .execute()
      }
      const result = await trx
        .insertInto('files')
        .values(file)
        // Whichever unique index (parts by content, media by model and content) another upload took first.
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst()
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) throw new LostRace()
      if (format === 'gcode') {
        const sources = slicedSourceKeys(extracted.objectNames ?? [], filename)
        if (sources.length > 0)
          await trx
            .insertInto('sliced_sources')
            .values(sources.map((name_key) => ({ file_id: file.id, name_key })))
            .execute()
      }
      await trx
        .updateTable('models')
        .set({ updated_at: now })
        .$if(thumbnail !== undefined, (qb) =>
          qb.set((eb) => ({
            thumbnail_sha256: eb.fn.coalesce('thumbnail_sha256', eb.val(file.thumbnail_sha256)),
            thumbnail_content_type: eb.fn.coalesce('thumbnail_content_type', eb.val(file.thumbnail_content_type)),
          })),
        )
        .where('id', '=', file.model_id)
        .execute()
      await refreshModel(trx, deps.database.dialect.search, file.model_id, now)
      return { file, newModel }
    })
    .catch((error: unknown) => {
      if (error instanceof LostRace) return undefined
      throw error
    })
  if (!inserted) {
    const winner = await findExisting(db, stored.sha256, format, upload.modelId)
    // Only a deletion of the winner's model in the moments since its commit leaves nothing to answer with.
    if (!winner) throw new Error('the upload that stored these bytes first was deleted meanwhile')
    return winner
  }
  const { file, newModel } = inserted
  await confirmStoredContent(deps, file, extracted.thumbnail?.bytes)
  const attachments =
    format === '3mf'
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
    new_model: newModel !== undefined,
    ...(attachments > 0 ? { attachments } : {}),
  })
  return {
    duplicate: false,
    modelCreated: newModel !== undefined,
    file: toFileRecord(file),
    model: toModelRecord(await getModelRow(db, file.model_id)),
  }
}

/**
 * The id of the model a loose image or document (uploaded without `model_id`) makes: derived from
 * its content, so concurrent uploads of it meet on one model and the unique index of media files
 * lets one of them in, as it does for parts across the vault.
 */
const modelIdOfContent = (sha256: string) =>
  [sha256.slice(0, 8), sha256.slice(8, 12), sha256.slice(12, 16), sha256.slice(16, 20), sha256.slice(20, 32)].join('-')

/** Another upload of the same bytes committed its file row first. */
class LostRace extends Error {}

async function extractOrRefuse(
  deps: IngestDeps,
  format: ReturnType<typeof formatOf>,
  stored: StoredContent,
): Promise<Extracted> {
  try {
    return await deps.extractStoredFile(format, stored)
  } catch (error) {
    if (error instanceof FormatError && error.kind === 'unsafe') {
      await forgetRefusedContent(deps, stored)
      throw new VaultError(422, 'unsafe_file', 'Unprocessable Content', `The file was refused: ${error.message}`)
    }
    // The bytes went while they were read: a model holding them was deleted, or the orphan sweep took them.
    if (!(await deps.blobs.stat(stored.sha256))) throw contentDeleted()
    throw error
  }
}

/**
 * Removes bytes refused for what they are (empty, unsafe) if this upload stored them. Safe
 * under concurrency: another upload of the same bytes meets the same refusal, so no file
 * row can come to point at them.
 */
async function forgetRefusedContent(deps: IngestDeps, stored: StoredContent): Promise<void> {
  if (stored.created) await deps.blobs.delete(stored.sha256)
}

/** Checks a `model_id` (callers check it before storing anything when they know it up front). */
export async function assertModelExists(deps: Pick<IngestDeps, 'database'>, modelId: string): Promise<void> {
  const row = await deps.database.db.selectFrom('models').select('id').where('id', '=', modelId).executeTakeFirst()
  if (!row)
    throw unprocessable(`No model has the id ${modelId}.`, [{ path: 'body.model_id', message: 'no such model' }])
}

/**
 * The model an upload that names none joins: a mesh joins the model of the same mesh in any
 * format, else a model whose G-code was sliced from it and that has no mesh yet; a G-code joins
 * the model of the mesh it was sliced from. Undefined: a new model.
 */
async function matchingModel(
  db: Kysely<Database>,
  format: FileFormat,
  filename: string,
  extracted: Extracted,
): Promise<string | undefined> {
  if (format === 'gcode') return findModelForGcode(db, extracted.objectNames ?? [], filename)
  if (!isMeshFormat(format) && format !== 'step') return undefined
  return (
    (extracted.mesh && isMeshFormat(format) ? await findModelByMesh(db, extracted.mesh) : undefined) ??
    findGcodeModelForMesh(db, filename)
  )
}

async function findExisting(
  db: Kysely<Database>,
  sha256: string,
  format: FileFormat,
  modelId: string | undefined,
): Promise<IngestResult | undefined> {
  const row = await db
    .selectFrom('files')
    .selectAll()
    .where('sha256', '=', sha256)
    .$if(roleOf(format) === 'part', (qb) => qb.where('format', 'not in', mediaFormats))
    .$if(roleOf(format) !== 'part', (qb) => qb.where('format', 'in', mediaFormats))
    .$if(roleOf(format) !== 'part' && modelId !== undefined, (qb) => qb.where('model_id', '=', modelId ?? ''))
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
