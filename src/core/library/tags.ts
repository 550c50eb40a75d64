import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { countsOf } from './library-counts.js'
import type { LibraryDeps } from './library-deps.js'
import { tagKey } from './model-query.js'
import { refreshModel } from './refresh-model.js'

/**
 * Tags are shared by name regardless of case; the first spelling used is the one shown. A tag no
 * model uses any more keeps its row (so a concurrent edit adding it cannot race a clean-up) but
 * is not listed.
 */

export interface TagRecord {
  name: string
  model_count: number
}

/** Replaces a model's tags with `names` (inside the transaction that edits the model). */
export async function setModelTags(
  trx: Kysely<Database>,
  modelId: string,
  names: string[],
  now: string,
): Promise<void> {
  await trx.deleteFrom('model_tags').where('model_id', '=', modelId).execute()
  const byKey = new Map<string, string>()
  for (const name of names) if (!byKey.has(tagKey(name))) byKey.set(tagKey(name), name)
  const unique = [...byKey.entries()]
  if (unique.length === 0) return
  await trx
    .insertInto('tags')
    .values(unique.map(([key, name]) => ({ id: crypto.randomUUID(), name, name_key: key, created_at: now })))
    .onConflict((oc) => oc.column('name_key').doNothing())
    .execute()
  const tags = await trx
    .selectFrom('tags')
    .select('id')
    .where(
      'name_key',
      'in',
      unique.map(([key]) => key),
    )
    .execute()
  await trx
    .insertInto('model_tags')
    .values(tags.map((tag) => ({ model_id: modelId, tag_id: tag.id })))
    .execute()
}

/** Tags in use, by name, with how many models carry each (from the kept counters: no pass over `model_tags`). */
export async function listTags(db: Kysely<Database>): Promise<TagRecord[]> {
  const rows = await db
    .selectFrom(
      countsOf(db, 'tag')
        .having((eb) => eb.fn.sum('parts.models'), '>', 0)
        .as('counts'),
    )
    .innerJoin('tags', 'tags.id', 'counts.key')
    .select(['tags.name', 'counts.models as model_count'])
    .orderBy('tags.name_key')
    .execute()
  return rows.map((row) => ({ name: row.name, model_count: Number(row.model_count) }))
}

type TagDeps = Pick<LibraryDeps, 'database' | 'clock' | 'logger'>

/** The tag a model carries by this name (any case), or 404. */
async function tagInUse(trx: Kysely<Database>, name: string): Promise<{ id: string; name: string }> {
  const tag = await trx
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('name_key', '=', tagKey(name))
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('model_tags').select('model_id').whereRef('tag_id', '=', 'tags.id')),
    )
    .executeTakeFirst()
  if (!tag) throw new VaultError('not_found', `No model carries the tag "${name}".`)
  return tag
}

/** Refreshes the search documents of `modelIds` (their tag words changed) and bumps their `updated_at`. */
async function refreshTagged(deps: TagDeps, trx: Kysely<Database>, modelIds: string[], now: string): Promise<void> {
  for (const modelId of modelIds) {
    await trx.updateTable('models').set({ updated_at: now }).where('id', '=', modelId).execute()
    await refreshModel(trx, deps.database.dialect.search, modelId, now)
  }
}

const modelsCarrying = async (trx: Kysely<Database>, tagId: string) =>
  (await trx.selectFrom('model_tags').select('model_id').where('tag_id', '=', tagId).execute()).map(
    (row) => row.model_id,
  )

/**
 * Renames a tag on every model that carries it. A new name that only changes the case respells
 * it; a name another tag already has merges the two: the models of both carry the one tag, in the
 * spelling given. Answers the tag as it is afterwards, and whether two were merged.
 */
export async function renameTag(
  deps: TagDeps,
  name: string,
  newName: string,
): Promise<{ tag: TagRecord; merged: boolean }> {
  const now = deps.clock.now().toISOString()
  const outcome = await deps.database.db.transaction().execute(async (trx) => {
    const tag = await tagInUse(trx, name)
    const models = await modelsCarrying(trx, tag.id)
    const target = await trx
      .selectFrom('tags')
      .select('id')
      .where('name_key', '=', tagKey(newName))
      .where('id', '!=', tag.id)
      .executeTakeFirst()
    if (!target) {
      await trx
        .updateTable('tags')
        .set({ name: newName, name_key: tagKey(newName) })
        .where('id', '=', tag.id)
        .execute()
      await refreshTagged(deps, trx, models, now)
      return { merged: false, from: tag.name }
    }
    // The models of the old tag carry the other one instead (once, where they carried both).
    await trx
      .insertInto('model_tags')
      .columns(['model_id', 'tag_id'])
      .expression((eb) =>
        eb
          .selectFrom('model_tags')
          .select(['model_id', eb.val(target.id).as('tag_id')])
          .where('tag_id', '=', tag.id),
      )
      .onConflict((oc) => oc.doNothing())
      .execute()
    await trx.deleteFrom('model_tags').where('tag_id', '=', tag.id).execute()
    await trx.updateTable('tags').set({ name: newName }).where('id', '=', target.id).execute()
    await refreshTagged(deps, trx, [...new Set([...models, ...(await modelsCarrying(trx, target.id))])], now)
    return { merged: true, from: tag.name }
  })
  deps.logger.info('tag renamed', { from: outcome.from, to: newName, merged: outcome.merged })
  const tag = (await listTags(deps.database.db)).find((listed) => tagKey(listed.name) === tagKey(newName))
  if (!tag) throw new VaultError('not_found', `No model carries the tag "${newName}" any more.`)
  return { tag, merged: outcome.merged }
}

/** Takes a tag off every model that carries it; answers how many did. */
export async function deleteTag(deps: TagDeps, name: string): Promise<number> {
  const now = deps.clock.now().toISOString()
  const models = await deps.database.db.transaction().execute(async (trx) => {
    const tag = await tagInUse(trx, name)
    const models = await modelsCarrying(trx, tag.id)
    await trx.deleteFrom('model_tags').where('tag_id', '=', tag.id).execute()
    await refreshTagged(deps, trx, models, now)
    return models
  })
  deps.logger.info('tag deleted', { name, models: models.length })
  return models.length
}
