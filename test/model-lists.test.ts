import { type Kysely, Migrator } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrateToLatest } from '../src/core/db/migrate.js'
import { migrations } from '../src/core/db/migrations/index.js'
import type { Database } from '../src/core/db/schema.js'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { openEmptyDatabase } from './support/empty-database.js'
import { bareFileRow } from './support/file-rows.js'
import { listAllPages } from './support/library.js'
import { inOwnTransactions } from './support/own-transactions.js'
import { startTestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

type Lists = Record<string, { tags: string[]; formats: string[] }>

/** Every model's lists as kept on its row (migration 0014). */
async function keptLists(db: Kysely<Database>): Promise<Lists> {
  const rows = await db.selectFrom('models').select(['id', 'tag_names', 'file_formats']).orderBy('id').execute()
  return Object.fromEntries(
    rows.map((row) => [row.id, { tags: JSON.parse(row.tag_names), formats: JSON.parse(row.file_formats) }]),
  )
}

/** Every model's lists from scratch: tag names by `name_key`, distinct formats in order, as the database sorts them. */
async function listsFromScratch(db: Kysely<Database>): Promise<Lists> {
  const lists: Lists = {}
  for (const { id } of await db.selectFrom('models').select('id').orderBy('id').execute())
    lists[id] = { tags: [], formats: [] }
  const tags = await db
    .selectFrom('model_tags')
    .innerJoin('tags', 'tags.id', 'model_tags.tag_id')
    .select(['model_tags.model_id', 'tags.name'])
    .orderBy('model_tags.model_id')
    .orderBy('tags.name_key')
    .execute()
  for (const tag of tags) lists[tag.model_id]!.tags.push(tag.name)
  const formats = await db
    .selectFrom('files')
    .select(['model_id', 'format'])
    .distinct()
    .orderBy('model_id')
    .orderBy('format')
    .execute()
  for (const file of formats) lists[file.model_id]!.formats.push(file.format)
  return lists
}

async function expectListsExact(db: Kysely<Database>): Promise<Lists> {
  const kept = await keptLists(db)
  expect(kept).toEqual(await listsFromScratch(db))
  return kept
}

const at = '2026-11-01T00:00:00.000Z'
const hubs = ['hub0', 'hub1', 'hub2', 'hub3']
const formats = ['stl', '3mf', 'gcode', 'step', 'image']
// Mixed case and script: kept lists must sort by name_key exactly as the database does.
const tagNames = ['Zeta', 'alpha', 'Été', 'beta', '10mm', '9mm']
const tagKeyOf = (name: string) => name.toLowerCase()

const insertModel = (db: Kysely<Database>, id: string) =>
  db
    .insertInto('models')
    .values({ id, name: id, created_at: at, updated_at: at, thumbnail_sha256: null, thumbnail_content_type: null })
    .execute()
const insertFile = (db: Kysely<Database>, id: string, model: string, format: string) =>
  db
    .insertInto('files')
    .values(bareFileRow({ id, model, format, size: 10, createdAt: at }))
    .execute()
const tag = (db: Kysely<Database>, model: string, tagIndex: number) =>
  db
    .insertInto('model_tags')
    .values({ model_id: model, tag_id: `tag${tagIndex}` })
    .onConflict((oc) => oc.doNothing())
    .execute()

/** Four shared models, six tags, and a model per writer with a file and two tags. */
async function writeLibrary(db: Kysely<Database>): Promise<void> {
  for (const hub of hubs) await insertModel(db, hub)
  await db
    .insertInto('tags')
    .values(tagNames.map((name, i) => ({ id: `tag${i}`, name, name_key: tagKeyOf(name), created_at: at })))
    .execute()
  for (let i = 0; i < 12; i++) {
    await insertModel(db, `m${i}`)
    await insertFile(db, `m${i}-f`, `m${i}`, formats[i % 5]!)
    await tag(db, `m${i}`, i % 6)
    await tag(db, `m${i}`, (i + 1) % 6)
  }
}

/**
 * Writers at once, each in its own transaction: files of every format added to the shared
 * models (several race to add a model's first file of a format) and tags to them, a tag taken
 * off a model, and a model deleted with its files and tags.
 */
const addAtOnce = (db: Kysely<Database>) =>
  inOwnTransactions(db, [
    ...Array.from(
      { length: 40 },
      (_, i) => (trx: Kysely<Database>) => insertFile(trx, `h${i}`, hubs[i % 4]!, formats[i % 5]!),
    ),
    ...Array.from({ length: 24 }, (_, i) => (trx: Kysely<Database>) => tag(trx, hubs[i % 4]!, i % 6)),
    (trx: Kysely<Database>) =>
      trx.deleteFrom('model_tags').where('model_id', '=', 'm5').where('tag_id', '=', 'tag5').execute(),
    (trx: Kysely<Database>) => trx.deleteFrom('models').where('id', '=', 'm3').execute(),
  ])

/**
 * Writers at once taking files away: each of a model's last two files of a format deleted by
 * its own writer (the second to commit must drop the format), and every file of another format
 * deleted from hub2; then a tag renamed and another deleted (its links go with it).
 */
async function removeAtOnce(db: Kysely<Database>): Promise<void> {
  const hubFiles = await db
    .selectFrom('files')
    .select(['id', 'model_id', 'format'])
    .where('model_id', 'in', hubs)
    .execute()
  const doomed = hubFiles.filter(
    (file) => file.format === 'stl' || (file.model_id === 'hub2' && file.format !== 'image'),
  )
  await inOwnTransactions(
    db,
    doomed.map((file) => (trx: Kysely<Database>) => trx.deleteFrom('files').where('id', '=', file.id).execute()),
  )
  await db.updateTable('tags').set({ name: 'Omega', name_key: 'omega' }).where('id', '=', 'tag0').execute()
  await db.deleteFrom('tags').where('id', '=', 'tag3').execute()
}

describe("a model's tag and format lists, kept on its row", () => {
  it('are filled for the rows of a database from before them (an old backup restored), then kept exact by concurrent writers', async () => {
    const { database, dispose } = await openEmptyDatabase()
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
      expect((await migrator.migrateTo('0013-library-counts')).error).toBeUndefined()
      await writeLibrary(database.db)
      await migrateToLatest(database.db)
      const filled = await expectListsExact(database.db)
      expect(filled.m0).toEqual({ tags: ['alpha', 'Zeta'], formats: ['stl'] })
      expect(filled.m4).toEqual({ tags: ['10mm', '9mm'], formats: ['image'] })
      expect(filled.hub0).toEqual({ tags: [], formats: [] })

      await addAtOnce(database.db)
      const added = await expectListsExact(database.db)
      expect(added.hub0!.formats).toHaveLength(formats.length)
      expect(added.m5!.tags).toEqual(['Zeta'])
      expect(added.m3).toBeUndefined()

      await removeAtOnce(database.db)
      const removed = await expectListsExact(database.db)
      expect(removed.hub0!.formats).not.toContain('stl')
      expect(removed.hub2!.formats).toEqual(['image'])
      expect(removed.m0!.tags).toEqual(['alpha', 'Omega'])
      expect(removed.m2!.tags).toEqual(['Été'])
    } finally {
      await dispose()
    }
  })

  it('follow uploads, tag edits, deletes and a restore made through the API', async () => {
    const vault = await startTestVault(adminEnv)
    try {
      const { db } = vault.deps.database
      let token = (await signIn(vault.baseUrl, admin)).access_token
      const uploaded = async (name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}) => {
        const reply = await upload(vault.baseUrl, token, name, bytes, fields)
        expect(reply.status, JSON.stringify(reply.body)).toBe(201)
        return reply.body.model.id as string
      }
      const setTags = async (id: string, tags: string[]) =>
        expect((await call(vault.baseUrl, 'PATCH', `/api/v1/models/${id}`, { token, json: { tags } })).status).toBe(200)
      // The list answers what the row keeps, and the row what the links and files say.
      const listed = async () => {
        const kept = await expectListsExact(db)
        const { items } = await listAllPages(vault.baseUrl, token, 'limit=2')
        expect(
          Object.fromEntries(items.map((item) => [item.id, { tags: item.tags, formats: item.file_summary.formats }])),
        ).toEqual(kept)
        return kept
      }

      const cube = await uploaded('cube.stl', binaryCube(10))
      await uploaded('cube.gcode', '; generated by PrusaSlicer 2.7.1\nG28\n', { model_id: cube })
      const notes = await uploaded('notes.txt', 'print slowly')
      await setTags(cube, ['Zeta', 'alpha', '10mm'])
      await setTags(notes, ['alpha'])
      expect((await listed())[cube]).toEqual({ tags: ['10mm', 'alpha', 'Zeta'], formats: ['gcode', 'stl'] })
      await setTags(cube, ['beta', 'ALPHA'])
      await setTags(notes, [])
      expect(await listed()).toMatchObject({
        [cube]: { tags: ['alpha', 'beta'], formats: ['gcode', 'stl'] },
        [notes]: { tags: [], formats: ['document'] },
      })
      const backup = await backUp(vault.baseUrl, token)
      expect(backup.status).toBe('complete')

      await setTags(cube, ['late'])
      await uploaded('cube.3mf.txt', 'a note on the cube', { model_id: cube })
      expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${notes}`, { token })).status).toBe(204)
      expect(await listed()).toEqual({ [cube]: { tags: ['late'], formats: ['document', 'gcode', 'stl'] } })

      const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })
      expect(restore.status, JSON.stringify(restore.body)).toBe(200)
      token = (await signIn(vault.baseUrl, admin)).access_token
      expect(await listed()).toEqual({
        [cube]: { tags: ['alpha', 'beta'], formats: ['gcode', 'stl'] },
        [notes]: { tags: [], formats: ['document'] },
      })
    } finally {
      await vault.close()
    }
  })
})
