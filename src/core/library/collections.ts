import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import type { Clock } from '../runtime/clock.js'
import { countsOf } from './library-counts.js'

export interface CollectionRecord {
  id: string
  name: string
  description: string
  /** The collection it sits in; null at the top. */
  parent_id: string | null
  /**
   * The model whose thumbnail is its cover: the one chosen, else the first of its models (by name)
   * that has a thumbnail; null when none has.
   */
  cover_model_id: string | null
  /** Whether a person chose the cover. */
  cover_chosen: boolean
  /** Collections directly inside it. */
  child_count: number
  model_count: number
  created_at: string
  updated_at: string
}

/** Collection names are unique regardless of case. */
const nameKey = (name: string) => name.toLowerCase()

const nameTaken = (name: string) =>
  new VaultError(
    'collection_name_taken',
    `A collection named "${name}" exists already (names are compared regardless of case).`,
  )

/** Every collection, by name, with how many models it holds (from the kept counters). */
export async function listCollections(db: Kysely<Database>, id?: string): Promise<CollectionRecord[]> {
  const rows = await db
    .selectFrom('collections')
    .leftJoin(countsOf(db, 'collection').as('counts'), (join) => join.onRef('counts.key', '=', 'collections.id'))
    .select([
      'collections.id',
      'collections.name',
      'collections.description',
      'collections.parent_id',
      'collections.created_at',
      'collections.updated_at',
      'counts.models as model_count',
      'collections.cover_model_id as chosen_cover',
      (eb) => {
        const covers = () =>
          eb
            .selectFrom('collection_models')
            .innerJoin('models', 'models.id', 'collection_models.model_id')
            .select('models.id')
            .whereRef('collection_models.collection_id', '=', 'collections.id')
            .where('models.thumbnail_sha256', 'is not', null)
        // The chosen model while it is one of them, else the first by name. Two subqueries rather than
        // an ORDER BY naming the outer row, which D1's SQLite cannot resolve.
        return eb.fn
          .coalesce(
            covers().whereRef('models.id', '=', 'collections.cover_model_id'),
            covers().orderBy('models.name').orderBy('models.id').limit(1),
          )
          .as('cover_model_id')
      },
      (eb) =>
        eb
          .selectFrom('collections as children')
          .select(eb.fn.countAll().as('n'))
          .whereRef('children.parent_id', '=', 'collections.id')
          .as('child_count'),
    ])
    .$call((qb) => (id === undefined ? qb : qb.where('collections.id', '=', id)))
    .orderBy('collections.name_key')
    .orderBy('collections.id')
    .execute()
  return rows.map(({ chosen_cover, ...row }) => ({
    ...row,
    cover_model_id: row.cover_model_id ?? null,
    // A chosen model taken out of the collection (or without a thumbnail) is not its cover.
    cover_chosen: chosen_cover !== null && chosen_cover === row.cover_model_id,
    model_count: Number(row.model_count ?? 0),
    child_count: Number(row.child_count ?? 0),
  }))
}

export async function getCollection(db: Kysely<Database>, id: string): Promise<CollectionRecord> {
  const [collection] = await listCollections(db, id)
  if (!collection) throw new VaultError('not_found', `No collection has the id ${id}.`)
  return collection
}

export async function createCollection(
  db: Kysely<Database>,
  clock: Clock,
  input: { name: string; description?: string; parent_id?: string | null },
): Promise<CollectionRecord> {
  const now = clock.now().toISOString()
  const id = crypto.randomUUID()
  const parentId = input.parent_id ?? null
  const inserted = await db.transaction().execute(async (trx) => {
    if (parentId !== null) await assertParentFits(trx, parentId, 1)
    const result = await trx
      .insertInto('collections')
      .values({
        id,
        name: input.name,
        name_key: nameKey(input.name),
        description: input.description ?? '',
        parent_id: parentId,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('name_key').doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
  })
  if (!inserted) throw nameTaken(input.name)
  return getCollection(db, id)
}

/** The collection of this name (regardless of case), created when there is none. */
export async function ensureCollection(db: Kysely<Database>, clock: Clock, name: string): Promise<CollectionRecord> {
  const find = () => db.selectFrom('collections').select('id').where('name_key', '=', nameKey(name)).executeTakeFirst()
  const existing = await find()
  if (existing) return getCollection(db, existing.id)
  try {
    return await createCollection(db, clock, { name })
  } catch (error) {
    // Another request created it since the look-up.
    const created = await find()
    if (created) return getCollection(db, created.id)
    throw error
  }
}

export async function updateCollection(
  db: Kysely<Database>,
  clock: Clock,
  id: string,
  changes: { name?: string; description?: string; parent_id?: string | null; cover_model_id?: string | null },
): Promise<CollectionRecord> {
  await getCollection(db, id)
  if (changes.cover_model_id) await assertMember(db, id, changes.cover_model_id)
  if (changes.name !== undefined) {
    const clash = await db
      .selectFrom('collections')
      .select('id')
      .where('name_key', '=', nameKey(changes.name))
      .where('id', '!=', id)
      .executeTakeFirst()
    if (clash) throw nameTaken(changes.name)
  }
  if (changes.parent_id !== undefined) await moveCollection(db, id, changes.parent_id)
  try {
    await db
      .updateTable('collections')
      .set({
        updated_at: clock.now().toISOString(),
        ...(changes.name !== undefined ? { name: changes.name, name_key: nameKey(changes.name) } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(changes.cover_model_id !== undefined ? { cover_model_id: changes.cover_model_id } : {}),
      })
      .where('id', '=', id)
      .execute()
  } catch (error) {
    // Another rename to the same name committed between the check and the update.
    if (
      changes.name !== undefined &&
      (await db
        .selectFrom('collections')
        .select('id')
        .where('name_key', '=', nameKey(changes.name))
        .where('id', '!=', id)
        .executeTakeFirst())
    ) {
      throw nameTaken(changes.name)
    }
    throw error
  }
  return getCollection(db, id)
}

/** 422 unless the model is in the collection and has a thumbnail: a cover is one of its pictures. */
async function assertMember(db: Kysely<Database>, id: string, modelId: string): Promise<void> {
  const member = await db
    .selectFrom('collection_models')
    .innerJoin('models', 'models.id', 'collection_models.model_id')
    .select('models.thumbnail_sha256')
    .where('collection_models.collection_id', '=', id)
    .where('collection_models.model_id', '=', modelId)
    .executeTakeFirst()
  if (!member?.thumbnail_sha256) {
    const message = member ? 'has no thumbnail' : 'not a model of this collection'
    throw unprocessable(
      `The model ${modelId} cannot be this collection's cover: it is ${member ? 'a model without a thumbnail' : 'not in the collection'}.`,
      [{ path: 'body.cover_model_id', message }],
    )
  }
}

/** Deletes the collection; its models stay in the library. One with collections inside it is refused. */
export async function deleteCollection(db: Kysely<Database>, id: string): Promise<void> {
  await getCollection(db, id)
  const child = await db.selectFrom('collections').select('name').where('parent_id', '=', id).executeTakeFirst()
  if (child)
    throw new VaultError(
      'collection_has_children',
      `Collection "${child.name}" and maybe others are inside it: move or delete them first.`,
    )
  const result = await db.deleteFrom('collections').where('id', '=', id).executeTakeFirst()
  if (Number(result.numDeletedRows) === 0) throw new VaultError('not_found', `No collection has the id ${id}.`)
}

/** How deep collections nest: a top-level collection is at depth 1. */
export const maxCollectionDepth = 8

/** A collection and every collection inside it, each with its level below it (the collection itself: 1). */
function subtree(db: Kysely<Database>, id: string) {
  return db
    .withRecursive('subtree(id, depth)', (cte) =>
      cte
        .selectFrom('collections')
        .select(['id', sql<number>`1`.as('depth')])
        .where('id', '=', id)
        .unionAll((next) =>
          next
            .selectFrom('collections')
            .innerJoin('subtree', 'subtree.id', 'collections.parent_id')
            .select(['collections.id', sql<number>`subtree.depth + 1`.as('depth')])
            // Bounded, so even a loop written by a race cannot make the walk endless.
            .where('subtree.depth', '<=', maxCollectionDepth),
        ),
    )
    .selectFrom('subtree')
}

/** The ids of a collection and of every collection inside it, at any depth. */
export async function collectionSubtree(db: Kysely<Database>, id: string): Promise<string[]> {
  return (await subtree(db, id).select('id').execute()).map((row) => row.id)
}

/** The levels of a collection's subtree: 1 when nothing is inside it. */
async function subtreeHeight(db: Kysely<Database>, id: string): Promise<number> {
  const row = await subtree(db, id)
    .select((eb) => eb.fn.max('depth').as('height'))
    .executeTakeFirst()
  return Number(row?.height ?? 1)
}

/** A collection and the collections it sits in, from it up to the top. */
async function ancestry(db: Kysely<Database>, id: string): Promise<string[]> {
  const rows = await db
    .withRecursive('chain(id, parent_id, depth)', (cte) =>
      cte
        .selectFrom('collections')
        .select(['id', 'parent_id', sql<number>`1`.as('depth')])
        .where('id', '=', id)
        .unionAll((next) =>
          next
            .selectFrom('collections')
            .innerJoin('chain', 'chain.parent_id', 'collections.id')
            .select(['collections.id', 'collections.parent_id', sql<number>`chain.depth + 1`.as('depth')])
            .where('chain.depth', '<=', maxCollectionDepth),
        ),
    )
    .selectFrom('chain')
    .select(['id', 'depth'])
    .orderBy('depth')
    .execute()
  return rows.map((row) => row.id)
}

const badParent = (message: string) => unprocessable(message, [{ path: 'body.parent_id', message }])

/** Refuses a parent that does not exist, or under which `height` more levels would nest too deep. */
async function assertParentFits(db: Kysely<Database>, parentId: string, height: number, moving?: string) {
  const chain = await ancestry(db, parentId)
  if (chain.length === 0) throw badParent(`No collection has the id ${parentId}.`)
  if (moving !== undefined && chain.includes(moving))
    throw badParent('A collection cannot move into itself or into a collection inside it.')
  if (chain.length + height > maxCollectionDepth)
    throw badParent(`Collections nest at most ${maxCollectionDepth} deep.`)
}

/** Puts a collection inside `parentId` (null: at the top), with everything inside it. */
async function moveCollection(db: Kysely<Database>, id: string, parentId: string | null): Promise<void> {
  if (parentId !== null && (await ancestry(db, parentId)).length === 0)
    throw badParent(`No collection has the id ${parentId}.`)
  await db.transaction().execute(async (trx) => {
    // Writing the moved row first takes SQLite's write lock and PostgreSQL's row lock before the checks read the tree.
    await trx.updateTable('collections').set({ parent_id: parentId }).where('id', '=', id).execute()
    if (parentId !== null) await assertParentFits(trx, parentId, await subtreeHeight(trx, id), id)
  })
}

/** Adds a model to a collection; adding it again changes nothing. */
export async function addToCollection(
  db: Kysely<Database>,
  clock: Clock,
  collectionId: string,
  modelId: string,
): Promise<void> {
  await assertMembershipEnds(db, collectionId, modelId)
  const now = clock.now().toISOString()
  const result = await db
    .insertInto('collection_models')
    .values({ collection_id: collectionId, model_id: modelId, added_at: now })
    .onConflict((oc) => oc.columns(['collection_id', 'model_id']).doNothing())
    .executeTakeFirst()
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0)
    await db.updateTable('collections').set({ updated_at: now }).where('id', '=', collectionId).execute()
}

/** Removes a model from a collection; removing one that is not in it changes nothing. */
export async function removeFromCollection(
  db: Kysely<Database>,
  clock: Clock,
  collectionId: string,
  modelId: string,
): Promise<void> {
  await assertMembershipEnds(db, collectionId, modelId)
  const result = await db
    .deleteFrom('collection_models')
    .where('collection_id', '=', collectionId)
    .where('model_id', '=', modelId)
    .executeTakeFirst()
  if (Number(result.numDeletedRows) > 0)
    await db
      .updateTable('collections')
      .set({ updated_at: clock.now().toISOString() })
      .where('id', '=', collectionId)
      .execute()
}

async function assertMembershipEnds(db: Kysely<Database>, collectionId: string, modelId: string): Promise<void> {
  const [collection, model] = await Promise.all([
    db.selectFrom('collections').select('id').where('id', '=', collectionId).executeTakeFirst(),
    db.selectFrom('models').select('id').where('id', '=', modelId).executeTakeFirst(),
  ])
  if (!collection) throw new VaultError('not_found', `No collection has the id ${collectionId}.`)
  if (!model) throw new VaultError('not_found', `No model has the id ${modelId}.`)
}
