import { Migrator, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { VaultDatabase } from '../src/core/db/database.js'
import { latestSchemaVersion, migrateToLatest, readSchemaVersion } from '../src/core/db/migrate.js'
import { migrations } from '../src/core/db/migrations/index.js'
import { vaultTables } from '../src/core/db/schema.js'
import { ensureInstallation } from '../src/core/installation.js'
import { systemClock } from '../src/core/runtime/clock.js'
import { openEmptyDatabase } from './support/empty-database.js'

let database: VaultDatabase
let dispose: () => Promise<void>
beforeEach(async () => {
  ;({ database, dispose } = await openEmptyDatabase())
})
afterEach(() => dispose())

/** A stored file of model m1 (made if missing) as the schema of the migrations under test holds it. */
async function insertStoredFile(id: string, name: string, format: string, metadata: unknown) {
  const at = '2026-11-01T00:00:00.000Z'
  await sql`insert into models (id, name, created_at, updated_at) values ('m1', 'm1', ${at}, ${at}) on conflict do nothing`.execute(
    database.db,
  )
  await sql`insert into files (id, sha256, size, model_id, original_name, name_key, format, content_type, metadata, parse_warnings, created_at)
    values (${id}, ${id.padEnd(64, '0')}, 3, 'm1', ${name}, ${id}, ${format}, 'x', ${JSON.stringify(metadata)}, '[]', ${at})`.execute(
    database.db,
  )
}

const slicedSources = () =>
  database.db.selectFrom('sliced_sources').selectAll().orderBy('file_id').orderBy('name_key').execute()

describe('schema migrations', () => {
  it('bring an empty database to the latest version, and a second run changes nothing', async () => {
    expect(await readSchemaVersion(database.db)).toBe(0)
    expect(await migrateToLatest(database.db)).toBe(latestSchemaVersion)
    expect(await migrateToLatest(database.db)).toBe(latestSchemaVersion)
    const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(database.db)
    // Every migration once; versions may skip a number (a migration numbered ahead on another branch).
    expect(Number(applied.rows[0]!.n)).toBe(Object.keys(migrations).length)
  })

  it('create exactly the tables a restore knows to replace', async () => {
    await migrateToLatest(database.db)
    const tables =
      database.kind === 'sqlite'
        ? await sql<{
            name: string
          }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(database.db)
        : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'`.execute(
            database.db,
          )
    // FTS5 keeps its index in shadow tables named after the virtual table; they go with it.
    const names = tables.rows
      .map((row) => row.name)
      .filter((name) => !/^model_search_(data|idx|content|docsize|config)$/.test(name))
    const ofThisKind =
      database.kind === 'sqlite' ? vaultTables : vaultTables.filter((name) => name !== 'model_search_docs')
    expect(names.sort()).toEqual([...ofThisKind].sort())
  })

  it('keep one installation id across restarts', async () => {
    await migrateToLatest(database.db)
    const first = await ensureInstallation(database.db, systemClock)
    expect(await ensureInstallation(database.db, systemClock)).toBe(first)
    const rows = await database.db.selectFrom('installation').selectAll().execute()
    expect(rows).toHaveLength(1)
  })

  it('refuse a database written by a newer build, and leave it untouched', async () => {
    await migrateToLatest(database.db)
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2030-01-01T00:00:00.000Z')`.execute(
      database.db,
    )
    await expect(migrateToLatest(database.db)).rejects.toThrow(
      `the database has schema version 9999, newer than this build supports (${latestSchemaVersion}); upgrade model-vault or restore an older backup`,
    )
    const names = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db)
    expect(names.rows.map((r) => r.name)).toContain('9999-from-the-future')
  })

  it('give API keys made before scopes existed full access and no expiry (0010)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0009-bed-clearance')).error).toBeUndefined()
    const at = '2026-11-01T00:00:00.000Z'
    await sql`insert into users (id, username, username_key, password_hash, role, created_at, updated_at)
      values ('u1', 'old', 'old', 'x', 'user', ${at}, ${at})`.execute(database.db)
    await sql`insert into api_keys (id, user_id, name, prefix, key_hash, created_at)
      values ('k1', 'u1', 'old script', '0123456789ab', 'hash', ${at})`.execute(database.db)
    await migrateToLatest(database.db)
    const key = await database.db.selectFrom('api_keys').select(['scopes', 'expires_at']).executeTakeFirstOrThrow()
    expect(key).toEqual({ scopes: 'full', expires_at: null })
  })

  it('let an image sit on two models but a part on one, keeping files and what refers to them (0011)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0010-api-key-scopes')).error).toBeUndefined()
    const at = '2026-11-01T00:00:00.000Z'
    const insertFile = (id: string, modelId: string, sha256: string, format: string) =>
      sql`insert into files (id, sha256, size, model_id, original_name, name_key, format, content_type, metadata, parse_warnings, created_at)
        values (${id}, ${sha256}, 3, ${modelId}, ${id}, ${id}, ${format}, 'x', '{}', '[]', ${at})`.execute(database.db)
    for (const id of ['m1', 'm2'])
      await sql`insert into models (id, name, created_at, updated_at) values (${id}, ${id}, ${at}, ${at})`.execute(
        database.db,
      )
    await insertFile('f1', 'm1', 'a'.repeat(64), 'stl')
    await sql`insert into dispatches (id, printer_name, file_id, file_name, start_requested, outcome, uploaded, started, confirmed, detail, steps, created_at, finished_at)
      values ('d1', 'p', 'f1', 'f1', 0, 'uploaded', 1, 0, 0, '', '[]', ${at}, ${at})`.execute(database.db)

    expect((await migrator.migrateTo('0011-model-media')).error).toBeUndefined()
    const dispatch = await database.db.selectFrom('dispatches').select('file_id').executeTakeFirstOrThrow()
    expect(dispatch.file_id).toBe('f1')
    const model = await database.db
      .selectFrom('models')
      .select('cover_file_id')
      .where('id', '=', 'm1')
      .executeTakeFirst()
    expect(model).toEqual({ cover_file_id: null })
    await insertFile('i1', 'm1', 'b'.repeat(64), 'image')
    await insertFile('i2', 'm2', 'b'.repeat(64), 'image')
    await expect(insertFile('i3', 'm2', 'b'.repeat(64), 'image')).rejects.toThrow()
    await expect(insertFile('f2', 'm2', 'a'.repeat(64), 'stl')).rejects.toThrow()
    // Foreign keys still hold after the SQLite rebuild: deleting a model takes its files.
    await database.db.deleteFrom('models').where('id', '=', 'm2').execute()
    expect(await database.db.selectFrom('files').select('id').orderBy('id').execute()).toEqual([
      { id: 'f1' },
      { id: 'i1' },
    ])
  })

  it('list the meshes each stored G-code names, so a mesh uploaded later finds it (0016)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0015-covering-sort-indexes')).error).toBeUndefined()
    await insertStoredFile('a', 'Lid_0.2mm_PLA.gcode', 'gcode', {
      gcode: { objects: ['Box Lid.stl id:0 copy 0', 'Hinge.stl'] },
    })
    await insertStoredFile('b', 'Clip_0.2mm.gcode', 'gcode', { gcode: { objects: [] } })
    await insertStoredFile('c', 'Odd.gcode', 'gcode', {})

    await migrateToLatest(database.db)
    const sources = await slicedSources()
    expect(sources).toEqual([
      { file_id: 'a', name_key: 'box-lid' },
      { file_id: 'a', name_key: 'hinge' },
      { file_id: 'b', name_key: 'clip' },
      { file_id: 'b', name_key: 'clip-0.2mm' },
      { file_id: 'c', name_key: 'odd' },
    ])
  })

  it('let one content be a file of several models, keep folders, and let files move between models (0017)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0016-sliced-sources')).error).toBeUndefined()
    const at = '2026-11-01T00:00:00.000Z'
    const insertFile = (id: string, modelId: string, sha256: string, format: string) =>
      sql`insert into files (id, sha256, size, model_id, original_name, name_key, format, content_type, metadata, parse_warnings, created_at)
        values (${id}, ${sha256}, 3, ${modelId}, ${id}, ${id}, ${format}, 'x', '{}', '[]', ${at})`.execute(database.db)
    for (const id of ['m1', 'm2'])
      await sql`insert into models (id, name, created_at, updated_at) values (${id}, ${id}, ${at}, ${at})`.execute(
        database.db,
      )
    await insertFile('f1', 'm1', 'a'.repeat(64), 'stl')

    await migrateToLatest(database.db)
    const kept = await database.db.selectFrom('files').select(['id', 'folder']).execute()
    expect(kept).toEqual([{ id: 'f1', folder: '' }])
    expect(
      await database.db
        .selectFrom('models')
        .select(['creator', 'source_url', 'license'])
        .where('id', '=', 'm1')
        .execute(),
    ).toEqual([{ creator: null, source_url: null, license: null }])
    // A part on two models, but once per model.
    await insertFile('f2', 'm2', 'a'.repeat(64), 'stl')
    await expect(insertFile('f3', 'm2', 'a'.repeat(64), 'stl')).rejects.toThrow()
    await insertFile('f4', 'm2', 'b'.repeat(64), 'gcode')
    // A file moves; its format, size and content still never change.
    await database.db.updateTable('files').set({ model_id: 'm1' }).where('id', '=', 'f4').execute()
    const lists = await database.db.selectFrom('models').select(['id', 'file_formats']).orderBy('id').execute()
    expect(lists.map((row) => [row.id, JSON.parse(row.file_formats)])).toEqual([
      ['m1', ['gcode', 'stl']],
      ['m2', ['stl']],
    ])
    await expect(database.db.updateTable('files').set({ size: 4 }).where('id', '=', 'f4').execute()).rejects.toThrow(
      /never change/,
    )
  })

  it('list the meshes each stored .gcode.3mf names, so it is matched as a sliced file, not a mesh (0018)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0017-model-shape')).error).toBeUndefined()
    await insertStoredFile('a', 'Screws.gcode.3mf', '3mf', {
      objects: [{ id: '1', name: 'Hex Nut', triangles: 10 }],
      plates: [{ index: 2, objects: ['M3x10 screw.stl', 'Hex Nut'] }],
    })
    await insertStoredFile('b', 'Clip_plate_1.gcode.3mf', '3mf', { objects: [], plates: [{ index: 1, objects: [] }] })
    await insertStoredFile('c', 'Project.3mf', '3mf', { objects: [{ id: '1', name: 'Gear', triangles: 10 }] })

    await migrateToLatest(database.db)
    const sources = await slicedSources()
    expect(sources).toEqual([
      { file_id: 'a', name_key: 'hex-nut' },
      { file_id: 'a', name_key: 'm3x10-screw' },
      { file_id: 'b', name_key: 'clip' },
      { file_id: 'b', name_key: 'clip-plate' },
      { file_id: 'b', name_key: 'clip-plate-1' },
    ])
  })

  it('keep dismissed merge suggestions only as long as their models live (0019)', async () => {
    await migrateToLatest(database.db)
    const at = '2026-11-01T00:00:00.000Z'
    await database.db
      .insertInto('models')
      .values(['m1', 'm2'].map((id) => ({ id, name: 'Box', created_at: at, updated_at: at })))
      .execute()
    await database.db
      .insertInto('merge_dismissals')
      .values(['m1', 'm2'].map((model_id) => ({ dismissal_id: 'd1', model_id, dismissed_at: at })))
      .execute()
    await expect(
      database.db
        .insertInto('merge_dismissals')
        .values({ dismissal_id: 'd2', model_id: 'gone', dismissed_at: at })
        .execute(),
    ).rejects.toThrow()
    await database.db.deleteFrom('models').where('id', '=', 'm2').execute()
    expect(await database.db.selectFrom('merge_dismissals').select('model_id').execute()).toEqual([{ model_id: 'm1' }])
  })

  it('put every existing collection at the top of the tree, and keep a parent from going while a child names it (0021)', async () => {
    const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0020-dispatch-history')).error).toBeUndefined()
    const at = '2026-11-01T00:00:00.000Z'
    const insertCollection = (id: string, parent?: string) =>
      parent === undefined
        ? sql`insert into collections (id, name, name_key, created_at, updated_at) values (${id}, ${id}, ${id}, ${at}, ${at})`.execute(
            database.db,
          )
        : sql`insert into collections (id, name, name_key, parent_id, created_at, updated_at) values (${id}, ${id}, ${id}, ${parent}, ${at}, ${at})`.execute(
            database.db,
          )
    await insertCollection('old')

    await migrateToLatest(database.db)
    expect(await database.db.selectFrom('collections').select(['id', 'parent_id']).execute()).toEqual([
      { id: 'old', parent_id: null },
    ])
    await insertCollection('child', 'old')
    await expect(insertCollection('stray', 'missing')).rejects.toThrow()
    await expect(database.db.deleteFrom('collections').where('id', '=', 'old').execute()).rejects.toThrow()
  })
})
