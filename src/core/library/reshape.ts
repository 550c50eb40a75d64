import type { Kysely, Selectable } from 'kysely'
import type { Database, FilesTable } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import { releaseContent, thumbnailStoreKeys } from './content-release.js'
import { settleCover } from './cover.js'
import type { LibraryDeps } from './library-deps.js'
import { getModelDetail, type ModelDetailRecord } from './models.js'
import { refreshModel } from './refresh-model.js'

/**
 * Changing the shape of the library: files moved or copied between models, models merged and
 * split. A model holds each content once, so a file whose bytes the target holds already is not
 * moved twice: the target's file stays, the moved one goes (its dispatch records follow the file
 * that stays). Files keep their ids when they move, so links, dispatch records and the sliced
 * sources of G-code follow them. Each change is one transaction; the stored bytes of nothing
 * removed are released afterwards only when no file holds them any more (see `releaseContent`).
 */

/** How files arrive in a model: leaving their own (`move`), or staying there too, sharing the stored bytes (`copy`). */
export type Arrival = 'move' | 'copy'

/** Moves or copies files of other models into `modelId`, into `folder` when given (else each keeps its own). */
export async function addFilesToModel(
  deps: LibraryDeps,
  modelId: string,
  change: { fileIds: string[]; mode: Arrival; folder?: string },
): Promise<ModelDetailRecord> {
  const released = await deps.database.db.transaction().execute(async (trx) => {
    await lockModel(trx, modelId, 'the model to add files to')
    const files = await filesByIds(trx, change.fileIds)
    const now = deps.clock.now().toISOString()
    const released =
      change.mode === 'move'
        ? await moveInto(trx, files, modelId, change.folder)
        : await copyInto(trx, files, modelId, change.folder, now)
    await refreshAll(deps, trx, [modelId, ...files.map((file) => file.model_id)], now)
    return released
  })
  await releaseContent(deps, released)
  return getModelDetail(deps.database.db, modelId)
}

/**
 * Merges `sources` into `modelId`: their files (each content once), tags and collections join
 * it, its empty description, creator, source and license take theirs, and they are deleted.
 */
export async function mergeModels(deps: LibraryDeps, modelId: string, sources: string[]): Promise<ModelDetailRecord> {
  const others = [...new Set(sources)].filter((id) => id !== modelId)
  if (others.length === 0)
    throw unprocessable('Name at least one other model to merge into this one.', [
      { path: 'body.model_ids', message: 'names no model but this one' },
    ])
  const released = await deps.database.db.transaction().execute(async (trx) => {
    await lockModel(trx, modelId, 'the model to merge into')
    const rows = await trx.selectFrom('models').selectAll().where('id', 'in', others).orderBy('created_at').execute()
    const missing = others.filter((id) => !rows.some((row) => row.id === id))
    if (missing.length > 0)
      throw unprocessable(`No model has the id ${missing.join(', ')}.`, [
        { path: 'body.model_ids', message: 'no such model' },
      ])
    const files = await trx.selectFrom('files').selectAll().where('model_id', 'in', others).execute()
    const released = await moveInto(trx, files, modelId, undefined)
    const target = await trx
      .selectFrom('models')
      .select(['description', 'creator', 'source_url', 'license'])
      .where('id', '=', modelId)
      .executeTakeFirstOrThrow()
    const firstOf = (field: 'description' | 'creator' | 'source_url' | 'license') =>
      target[field] || rows.map((row) => row[field]).find((value) => value) || target[field]
    await trx
      .updateTable('models')
      .set({
        description: firstOf('description') ?? '',
        creator: firstOf('creator') ?? null,
        source_url: firstOf('source_url') ?? null,
        license: firstOf('license') ?? null,
      })
      .where('id', '=', modelId)
      .execute()
    await joinLinks(trx, others, modelId)
    await trx.deleteFrom('models').where('id', 'in', others).execute()
    const thumbnails = thumbnailStoreKeys(...rows)
    await refreshAll(deps, trx, [modelId], deps.clock.now().toISOString())
    return { blobs: released.blobs, thumbnails: [...released.thumbnails, ...thumbnails] }
  })
  deps.logger.info('models merged', { model_id: modelId, merged: others })
  await releaseContent(deps, released)
  return getModelDetail(deps.database.db, modelId)
}

/**
 * Splits files of `modelId` into a new model named `name`, which takes the model's tags,
 * collections, creator, source and license (a part of a model is still by its maker).
 */
export async function splitModel(
  deps: LibraryDeps,
  modelId: string,
  change: { fileIds: string[]; name: string; createdBy: string },
): Promise<ModelDetailRecord> {
  const newId = crypto.randomUUID()
  await deps.database.db.transaction().execute(async (trx) => {
    const model = await lockModel(trx, modelId, 'the model to split')
    const files = await filesByIds(trx, change.fileIds)
    const strangers = files.filter((file) => file.model_id !== modelId)
    if (strangers.length > 0)
      throw unprocessable(`Files ${strangers.map((file) => file.id).join(', ')} are not files of this model.`, [
        { path: 'body.file_ids', message: 'not a file of this model' },
      ])
    const now = deps.clock.now().toISOString()
    await trx
      .insertInto('models')
      .values({
        id: newId,
        name: change.name,
        creator: model.creator,
        source_url: model.source_url,
        license: model.license,
        created_by: change.createdBy,
        created_at: now,
        updated_at: now,
        thumbnail_sha256: null,
        thumbnail_content_type: null,
      })
      .execute()
    await copyLinks(trx, modelId, newId)
    await moveInto(trx, files, newId, undefined)
    await refreshAll(deps, trx, [modelId, newId], now)
  })
  deps.logger.info('model split', { model_id: modelId, new_model_id: newId, files: change.fileIds.length })
  return getModelDetail(deps.database.db, newId)
}

/** The content `releaseContent` may remove once a change has committed. */
interface Released {
  blobs: string[]
  thumbnails: string[]
}

/** Moves `files` into `modelId`; a file whose content the model holds already goes, its records following the one that stays. */
async function moveInto(
  trx: Kysely<Database>,
  files: Selectable<FilesTable>[],
  modelId: string,
  folder: string | undefined,
): Promise<Released> {
  const held = await heldContent(trx, modelId, files)
  const released: Released = { blobs: [], thumbnails: [] }
  for (const file of files) {
    if (file.model_id === modelId) {
      if (folder !== undefined) await trx.updateTable('files').set({ folder }).where('id', '=', file.id).execute()
      continue
    }
    const keeper = held.get(file.sha256)
    if (keeper) {
      await trx.updateTable('dispatches').set({ file_id: keeper }).where('file_id', '=', file.id).execute()
      await trx.deleteFrom('files').where('id', '=', file.id).execute()
      released.blobs.push(file.sha256)
      released.thumbnails.push(...thumbnailStoreKeys(file))
      continue
    }
    await trx
      .updateTable('files')
      .set({ model_id: modelId, ...(folder !== undefined ? { folder } : {}) })
      .where('id', '=', file.id)
      .execute()
    held.set(file.sha256, file.id)
  }
  return released
}

/** Copies `files` into `modelId` as files of their own sharing the stored bytes; content it holds already is left. */
async function copyInto(
  trx: Kysely<Database>,
  files: Selectable<FilesTable>[],
  modelId: string,
  folder: string | undefined,
  now: string,
): Promise<Released> {
  const held = await heldContent(trx, modelId, files)
  for (const file of files) {
    if (held.has(file.sha256)) continue
    const id = crypto.randomUUID()
    await trx
      .insertInto('files')
      .values({ ...file, id, model_id: modelId, folder: folder ?? file.folder, created_at: now })
      .execute()
    const sources = await trx.selectFrom('sliced_sources').select('name_key').where('file_id', '=', file.id).execute()
    if (sources.length > 0)
      await trx
        .insertInto('sliced_sources')
        .values(sources.map(({ name_key }) => ({ file_id: id, name_key })))
        .execute()
    held.set(file.sha256, id)
  }
  return { blobs: [], thumbnails: [] }
}

/** Of the contents of `files`, those `modelId` holds, by hash, with the id of its file holding each. */
async function heldContent(trx: Kysely<Database>, modelId: string, files: Selectable<FilesTable>[]) {
  if (files.length === 0) return new Map<string, string>()
  const rows = await trx
    .selectFrom('files')
    .select(['id', 'sha256'])
    .where('model_id', '=', modelId)
    .where(
      'sha256',
      'in',
      files.map((file) => file.sha256),
    )
    .execute()
  return new Map(rows.map((row) => [row.sha256, row.id]))
}

/** The files of `ids` in the order given; 422 naming the ids no file has. */
async function filesByIds(trx: Kysely<Database>, ids: string[]): Promise<Selectable<FilesTable>[]> {
  const unique = [...new Set(ids)]
  const rows = unique.length ? await trx.selectFrom('files').selectAll().where('id', 'in', unique).execute() : []
  const missing = unique.filter((id) => !rows.some((row) => row.id === id))
  if (missing.length > 0)
    throw unprocessable(`No file has the id ${missing.join(', ')}.`, [
      { path: 'body.file_ids', message: 'no such file' },
    ])
  return unique.map((id) => rows.find((row) => row.id === id) as Selectable<FilesTable>)
}

/**
 * Takes the model's row lock for the change (another change of the model waits), bumping
 * `updated_at`; 404 when no model has the id.
 */
async function lockModel(trx: Kysely<Database>, modelId: string, what: string) {
  const model = await trx.selectFrom('models').selectAll().where('id', '=', modelId).executeTakeFirst()
  if (!model) throw new VaultError('not_found', `No model has the id ${modelId} (${what}).`)
  await trx.updateTable('models').set({ updated_at: model.updated_at }).where('id', '=', modelId).execute()
  return model
}

/** The tags and collections of `from` join those of `to`. */
async function joinLinks(trx: Kysely<Database>, from: string[], to: string) {
  const tags = await trx.selectFrom('model_tags').select('tag_id').where('model_id', 'in', from).execute()
  if (tags.length > 0)
    await trx
      .insertInto('model_tags')
      .values([...new Set(tags.map((tag) => tag.tag_id))].map((tag_id) => ({ model_id: to, tag_id })))
      .onConflict((oc) => oc.doNothing())
      .execute()
  const collections = await trx
    .selectFrom('collection_models')
    .selectAll()
    .where('model_id', 'in', from)
    .orderBy('added_at')
    .execute()
  const byCollection = new Map(collections.map((link) => [link.collection_id, link]))
  if (byCollection.size > 0)
    await trx
      .insertInto('collection_models')
      .values([...byCollection.values()].map((link) => ({ ...link, model_id: to })))
      .onConflict((oc) => oc.doNothing())
      .execute()
}

const copyLinks = (trx: Kysely<Database>, from: string, to: string) => joinLinks(trx, [from], to)

/** Bumps, counts, re-indexes and settles the cover of every model a change touched. */
async function refreshAll(deps: LibraryDeps, trx: Kysely<Database>, modelIds: string[], now: string) {
  for (const id of [...new Set(modelIds)].sort()) {
    await trx.updateTable('models').set({ updated_at: now }).where('id', '=', id).execute()
    await refreshModel(trx, deps.database.dialect.search, id, now)
    await settleCover(trx, id, true)
  }
}
