import { type Kysely, Migrator } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VaultDatabase } from '../src/core/db/database.js'
import { migrateToLatest } from '../src/core/db/migrate.js'
import { migrations } from '../src/core/db/migrations/index.js'
import type { Database } from '../src/core/db/schema.js'
import { libraryStats } from '../src/core/library/stats.js'
import { openEmptyDatabase } from './support/empty-database.js'
import { bareFileRow } from './support/file-rows.js'
import { recountLibrary } from './support/library-recount.js'
import { inOwnTransactions } from './support/own-transactions.js'

let database: VaultDatabase
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ database, dispose } = await openEmptyDatabase())
})
afterEach(() => dispose())

const at = '2026-11-01T00:00:00.000Z'
/** Writers per phase: enough for PostgreSQL's counters to fold their deltas at least once. */
const writers = 60
const hubs = ['hub0', 'hub1', 'hub2', 'hub3']
const partFormats = ['stl', '3mf', 'gcode']
const slicers = ['PrusaSlicer', 'OrcaSlicer', 'Cura']

async function insertFile(
  db: Kysely<Database>,
  file: { id: string; model: string; format: string; sha256?: string; size: number; slicer?: string },
): Promise<void> {
  await db
    .insertInto('files')
    .values(bareFileRow({ ...file, createdAt: at }))
    .execute()
}

const insertModel = (db: Kysely<Database>, id: string) =>
  db
    .insertInto('models')
    .values({ id, name: id, created_at: at, updated_at: at, thumbnail_sha256: null, thumbnail_content_type: null })
    .execute()

/**
 * Writers at once, each in its own transaction touching one model, as uploads and deletes do:
 * 60 models with a part, a G-code whose slicer is set afterwards (as refreshModel does), an
 * image two in three of them share, tags and a collection; and 60 parts added to four shared
 * models, so several writers race to add the first file of a format to the same model.
 */
async function writeLibrary(db: Kysely<Database>): Promise<void> {
  await Promise.all(hubs.map((hub) => insertModel(db, hub)))
  await db
    .insertInto('tags')
    .values([0, 1, 2, 3, 4].map((i) => ({ id: `tag${i}`, name: `Tag ${i}`, name_key: `tag ${i}`, created_at: at })))
    .execute()
  await db
    .insertInto('collections')
    .values(
      [0, 1].map((i) => ({ id: `col${i}`, name: `Box ${i}`, name_key: `box ${i}`, created_at: at, updated_at: at })),
    )
    .execute()
  const ids = Array.from({ length: writers }, (_, i) => i)
  await inOwnTransactions(db, [
    ...ids.map((i) => async (trx: Kysely<Database>) => {
      const model = `m${i}`
      await insertModel(trx, model)
      await insertFile(trx, { id: `${model}-part`, model, format: partFormats[i % 2]!, size: 1000 + i })
      await insertFile(trx, { id: `${model}-gcode`, model, format: 'gcode', size: 500 + i })
      await trx
        .updateTable('files')
        .set({ slicer: slicers[i % 3]! })
        .where('id', '=', `${model}-gcode`)
        .execute()
      if (i % 3 !== 0)
        await insertFile(trx, { id: `${model}-img`, model, format: 'image', sha256: `img${i % 2}`, size: 70 + (i % 2) })
      await trx
        .insertInto('model_tags')
        .values([
          { model_id: model, tag_id: `tag${i % 5}` },
          { model_id: model, tag_id: `tag${(i + 1) % 5}` },
        ])
        .execute()
      await trx
        .insertInto('collection_models')
        .values({ collection_id: `col${i % 2}`, model_id: model, added_at: at })
        .execute()
    }),
    ...ids.map(
      (i) => (trx: Kysely<Database>) =>
        insertFile(trx, { id: `hub-${i}`, model: hubs[i % 4]!, format: partFormats[i % 3]!, size: 10 + i }),
    ),
  ])
}

/**
 * At once: model deletes (cascading to files, a shared image, tags, collections), single-file
 * deletes that may empty a format of a model, slicer changes, new uploads sharing the image and
 * adding to the shared models, an untagging and a collection deleted.
 */
async function churnLibrary(db: Kysely<Database>): Promise<void> {
  const ids = Array.from({ length: writers }, (_, i) => i)
  await inOwnTransactions(db, [
    ...ids.map((i) => async (trx: Kysely<Database>) => {
      if (i % 3 === 0) await trx.deleteFrom('models').where('id', '=', `m${i}`).execute()
      else if (i % 3 === 1) await trx.deleteFrom('files').where('id', '=', `hub-${i}`).execute()
      else
        await trx
          .updateTable('files')
          .set({ slicer: i % 2 ? null : 'SuperSlicer' })
          .where('id', '=', `m${i}-gcode`)
          .execute()
    }),
    ...ids.map((i) => async (trx: Kysely<Database>) => {
      await insertModel(trx, `n${i}`)
      await insertFile(trx, {
        id: `n${i}-img`,
        model: `n${i}`,
        format: 'image',
        sha256: `img${i % 2}`,
        size: 70 + (i % 2),
      })
    }),
    ...ids.map(
      (i) => (trx: Kysely<Database>) =>
        insertFile(trx, { id: `hub-new-${i}`, model: hubs[i % 4]!, format: 'step', size: 5 }),
    ),
    (trx: Kysely<Database>) => trx.deleteFrom('model_tags').where('tag_id', '=', 'tag3').execute(),
    (trx: Kysely<Database>) => trx.deleteFrom('collections').where('id', '=', 'col1').execute(),
  ])
}

describe('library counters', () => {
  it('equal a count from scratch after concurrent uploads, then deletes, slicer changes and more uploads', async () => {
    await migrateToLatest(database.db)
    await writeLibrary(database.db)
    const written = await libraryStats(database.db)
    expect(written).toEqual(await recountLibrary(database.db))
    expect(written.totals.models).toBe(64)
    expect(written.by_format.find((row) => row.format === 'stl')).toEqual({
      format: 'stl',
      files: 30 + 20,
      models: 30 + 4,
      bytes: expect.any(Number),
    })
    await churnLibrary(database.db)
    const churned = await libraryStats(database.db)
    expect(churned).toEqual(await recountLibrary(database.db))
    expect(churned.totals.models).toBe(64 - 20 + 60)
  })

  it('are counted once from the rows of a database from before them (an old backup restored), then kept', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0012-lock-progress')).error).toBeUndefined()
    await writeLibrary(database.db)
    const before = await recountLibrary(database.db)
    await migrateToLatest(database.db)
    expect(await libraryStats(database.db)).toEqual(before)
    await churnLibrary(database.db)
    expect(await libraryStats(database.db)).toEqual(await recountLibrary(database.db))
  })
})
