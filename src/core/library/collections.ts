import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { conflict, notFound } from '../errors.js'
import type { Clock } from '../runtime/clock.js'
import { countsOf } from './library-counts.js'

export interface CollectionRecord {
  id: string
  name: string
  description: string
  model_count: number
  created_at: string
  updated_at: string
}

/** Collection names are unique regardless of case. */
const nameKey = (name: string) => name.toLowerCase()

const nameTaken = (name: string) =>
  conflict(
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
      'collections.created_at',
      'collections.updated_at',
      'counts.models as model_count',
    ])
    .$call((qb) => (id === undefined ? qb : qb.where('collections.id', '=', id)))
    .orderBy('collections.name_key')
    .orderBy('collections.id')
    .execute()
  return rows.map((row) => ({ ...row, model_count: Number(row.model_count ?? 0) }))
}

export async function getCollection(db: Kysely<Database>, id: string): Promise<CollectionRecord> {
  const [collection] = await listCollections(db, id)
  if (!collection) throw notFound(`No collection has the id ${id}.`)
  return collection
}

export async function createCollection(
  db: Kysely<Database>,
  clock: Clock,
  input: { name: string; description?: string },
): Promise<CollectionRecord> {
  const now = clock.now().toISOString()
  const id = crypto.randomUUID()
  const result = await db
    .insertInto('collections')
    .values({
      id,
      name: input.name,
      name_key: nameKey(input.name),
      description: input.description ?? '',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('name_key').doNothing())
    .executeTakeFirst()
  if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) throw nameTaken(input.name)
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
  changes: { name?: string; description?: string },
): Promise<CollectionRecord> {
  await getCollection(db, id)
  if (changes.name !== undefined) {
    const clash = await db
      .selectFrom('collections')
      .select('id')
      .where('name_key', '=', nameKey(changes.name))
      .where('id', '!=', id)
      .executeTakeFirst()
    if (clash) throw nameTaken(changes.name)
  }
  try {
    await db
      .updateTable('collections')
      .set({
        updated_at: clock.now().toISOString(),
        ...(changes.name !== undefined ? { name: changes.name, name_key: nameKey(changes.name) } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
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

/** Deletes the collection; its models stay in the library. */
export async function deleteCollection(db: Kysely<Database>, id: string): Promise<void> {
  const result = await db.deleteFrom('collections').where('id', '=', id).executeTakeFirst()
  if (Number(result.numDeletedRows) === 0) throw notFound(`No collection has the id ${id}.`)
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
  if (!collection) throw notFound(`No collection has the id ${collectionId}.`)
  if (!model) throw notFound(`No model has the id ${modelId}.`)
}
