import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { releaseContent, thumbnailStoreKeys } from './content-release.js'
import type { CursorPosition } from './cursor.js'
import type { LibraryDeps } from './library-deps.js'
import { type ModelFilters, modelPageQuery, tagKey } from './model-query.js'
import { refreshModel } from './refresh-model.js'

/** Explicit model ids (unknown ones are skipped), or every model matching the list's filters. */
export type BulkSelection = { ids: string[] } | { filters: ModelFilters }

export type BulkAction =
  | { type: 'add_tags'; tags: string[] }
  | { type: 'remove_tags'; tags: string[] }
  | { type: 'add_to_collection'; collection_id: string }
  | { type: 'remove_from_collection'; collection_id: string }
  | { type: 'delete' }

/** How many models the action changed (or, on a dry run, would consider) and how many files those models hold. */
export interface BulkOutcome {
  models: number
  files: number
}

/**
 * Models handled per transaction. A "delete everything matching" over 100,000 models runs as
 * many short transactions, each releasing its own content, with a turn of the event loop between
 * them, so neither the database nor other requests wait for the whole selection.
 */
const bulkPageSize = 200

interface PageModel {
  id: string
  file_count: number
}

/**
 * Applies one action to every selected model, a page at a time (see `bulkPageSize`); with `dryRun`
 * only counts the selection. Each page is one transaction: an interruption leaves whole pages done.
 * A filter is walked in creation order, which no action changes, so a page the action takes out of
 * the filter (removing the tag filtered on, deleting) never makes the walk skip or repeat a model.
 */
export async function applyToModels(
  deps: LibraryDeps,
  selection: BulkSelection,
  action: BulkAction,
  options: { dryRun: boolean; pageSize?: number },
): Promise<BulkOutcome> {
  if (action.type === 'add_to_collection' || action.type === 'remove_from_collection')
    await assertCollectionExists(deps.database.db, action.collection_id)
  const outcome: BulkOutcome = { models: 0, files: 0 }
  for await (const page of selectedPages(deps, selection, options.pageSize ?? bulkPageSize)) {
    const changed = options.dryRun ? page : await applyToPage(deps, page, action)
    outcome.models += changed.length
    outcome.files += changed.reduce((sum, model) => sum + model.file_count, 0)
    await nextTurn()
  }
  if (!options.dryRun) deps.logger.info('models changed in bulk', { action: action.type, ...outcome })
  return outcome
}

async function* selectedPages(
  deps: LibraryDeps,
  selection: BulkSelection,
  pageSize: number,
): AsyncGenerator<PageModel[]> {
  const { db } = deps.database
  if ('ids' in selection) {
    const ids = [...new Set(selection.ids)]
    for (let start = 0; start < ids.length; start += pageSize) {
      const chunk = ids.slice(start, start + pageSize)
      yield await db.selectFrom('models').select(['id', 'file_count']).where('id', 'in', chunk).execute()
    }
    return
  }
  const query = { filters: selection.filters, sort: 'created', order: 'asc' } as const
  let after: CursorPosition | undefined
  for (;;) {
    const statement = await modelPageQuery(deps.database, query, pageSize, ['id', 'file_count'], after)
    const rows = await statement.execute()
    if (rows.length > 0) yield rows
    const last = rows.at(-1)
    if (!last || rows.length < pageSize) return
    after = { value: last.sort_value, id: last.id }
  }
}

/** Other requests run between pages (better-sqlite3 answers synchronously, so awaiting it alone never yields). */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

async function assertCollectionExists(db: Kysely<Database>, id: string): Promise<void> {
  const found = await db.selectFrom('collections').select('id').where('id', '=', id).executeTakeFirst()
  if (!found) throw new VaultError('not_found', `No collection has the id ${id}.`)
}

/** Applies the action to one page in one transaction; answers the models it changed. */
async function applyToPage(deps: LibraryDeps, page: PageModel[], action: BulkAction): Promise<PageModel[]> {
  if (page.length === 0) return []
  const ids = page.map((model) => model.id)
  const now = deps.clock.now().toISOString()
  if (action.type === 'delete') return await deletePage(deps, page)
  const changedIds = await deps.database.db.transaction().execute(async (trx) => {
    const changed = await changeMemberships(trx, ids, action, now)
    if (changed.length === 0) return changed
    if (action.type === 'add_tags' || action.type === 'remove_tags') {
      // A model's tags are part of its search document and of what its `updated_at` tells.
      await trx.updateTable('models').set({ updated_at: now }).where('id', 'in', changed).execute()
      for (const id of changed) await refreshModel(trx, deps.database.dialect.search, id, now)
    } else
      await trx.updateTable('collections').set({ updated_at: now }).where('id', '=', action.collection_id).execute()
    return changed
  })
  const changed = new Set(changedIds)
  return page.filter((model) => changed.has(model.id))
}

/** Changes the tags or collection membership of the models; answers the models it changed. */
function changeMemberships(
  trx: Kysely<Database>,
  ids: string[],
  action: Exclude<BulkAction, { type: 'delete' }>,
  now: string,
): Promise<string[]> {
  switch (action.type) {
    case 'add_tags':
      return addTags(trx, ids, action.tags, now)
    case 'remove_tags':
      return removeTags(trx, ids, action.tags)
    case 'add_to_collection':
      return joinCollection(trx, ids, action.collection_id, now)
    case 'remove_from_collection':
      return leaveCollection(trx, ids, action.collection_id)
  }
}

/** Gives the models every tag (creating tags nobody had); answers the models that gained one. */
async function addTags(trx: Kysely<Database>, ids: string[], names: string[], now: string): Promise<string[]> {
  const byKey = new Map<string, string>()
  for (const name of names) if (!byKey.has(tagKey(name))) byKey.set(tagKey(name), name)
  await trx
    .insertInto('tags')
    .values([...byKey].map(([key, name]) => ({ id: crypto.randomUUID(), name, name_key: key, created_at: now })))
    .onConflict((oc) => oc.column('name_key').doNothing())
    .execute()
  const tags = await trx
    .selectFrom('tags')
    .select('id')
    .where('name_key', 'in', [...byKey.keys()])
    .execute()
  const held = await trx
    .selectFrom('model_tags')
    .select(['model_id', 'tag_id'])
    .where('model_id', 'in', ids)
    .where(
      'tag_id',
      'in',
      tags.map((tag) => tag.id),
    )
    .execute()
  const heldPairs = new Set(held.map((row) => `${row.model_id} ${row.tag_id}`))
  const missing = ids.flatMap((id) =>
    tags.filter((tag) => !heldPairs.has(`${id} ${tag.id}`)).map((tag) => ({ model_id: id, tag_id: tag.id })),
  )
  if (missing.length > 0) await trx.insertInto('model_tags').values(missing).execute()
  return [...new Set(missing.map((row) => row.model_id))]
}

/** Takes the tags (any case) off the models; answers the models that lost one. */
async function removeTags(trx: Kysely<Database>, ids: string[], names: string[]): Promise<string[]> {
  const tagIds = trx.selectFrom('tags').select('id').where('name_key', 'in', names.map(tagKey))
  const removed = await trx
    .deleteFrom('model_tags')
    .where('model_id', 'in', ids)
    .where('tag_id', 'in', tagIds)
    .returning('model_id')
    .execute()
  return [...new Set(removed.map((row) => row.model_id))]
}

async function joinCollection(
  trx: Kysely<Database>,
  ids: string[],
  collectionId: string,
  now: string,
): Promise<string[]> {
  const inserted = await trx
    .insertInto('collection_models')
    .values(ids.map((id) => ({ collection_id: collectionId, model_id: id, added_at: now })))
    .onConflict((oc) => oc.columns(['collection_id', 'model_id']).doNothing())
    .returning('model_id')
    .execute()
  return inserted.map((row) => row.model_id)
}

async function leaveCollection(trx: Kysely<Database>, ids: string[], collectionId: string): Promise<string[]> {
  const removed = await trx
    .deleteFrom('collection_models')
    .where('collection_id', '=', collectionId)
    .where('model_id', 'in', ids)
    .returning('model_id')
    .execute()
  return removed.map((row) => row.model_id)
}

/** Deletes the page's models as `deleteModel` does: rows in one transaction, then the content nothing references. */
async function deletePage(deps: LibraryDeps, page: PageModel[]): Promise<PageModel[]> {
  const ids = page.map((model) => model.id)
  const { deleted, content } = await deps.database.db.transaction().execute(async (trx) => {
    const models = await trx.selectFrom('models').select('thumbnail_sha256').where('id', 'in', ids).execute()
    const files = await trx
      .selectFrom('files')
      .select(['sha256', 'thumbnail_sha256', 'preview_sha256'])
      .where('model_id', 'in', ids)
      .execute()
    const removed = await trx.deleteFrom('models').where('id', 'in', ids).returning('id').execute()
    return {
      deleted: new Set(removed.map((row) => row.id)),
      content: {
        blobs: files.map((file) => file.sha256),
        thumbnails: thumbnailStoreKeys(...models, ...files),
      },
    }
  })
  await releaseContent(deps, content)
  return page.filter((model) => deleted.has(model.id))
}
