import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Migrator, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openPostgresDatabase } from '../src/adapters/postgres/postgres-database.js'
import { openSqliteDatabase } from '../src/adapters/sqlite/sqlite-database.js'
import type { VaultDatabase } from '../src/core/db/database.js'
import { latestSchemaVersion, migrateToLatest, readSchemaVersion } from '../src/core/db/migrate.js'
import { migrations } from '../src/core/db/migrations/index.js'
import { vaultTables } from '../src/core/db/schema.js'
import { ensureInstallation } from '../src/core/installation.js'
import { systemClock } from '../src/core/runtime/clock.js'
import { createTestDatabase } from './support/test-database.js'

let dir: string
let database: VaultDatabase
let drop: () => Promise<void>
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-migrate-'))
  const test = await createTestDatabase(dir)
  drop = test.drop
  const scratchDir = join(dir, 'scratch')
  database =
    test.kind === 'sqlite'
      ? openSqliteDatabase(join(dir, 'vault.sqlite'), { scratchDir })
      : openPostgresDatabase(test.url, { scratchDir, onIdleError: () => {} })
})
afterEach(async () => {
  await database.close()
  await drop()
  await rm(dir, { recursive: true, force: true })
})

describe('schema migrations', () => {
  it('bring an empty database to the latest version, and a second run changes nothing', async () => {
    expect(await readSchemaVersion(database.db)).toBe(0)
    expect(await migrateToLatest(database.db)).toBe(latestSchemaVersion)
    expect(await migrateToLatest(database.db)).toBe(latestSchemaVersion)
    const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(database.db)
    expect(Number(applied.rows[0]!.n)).toBe(latestSchemaVersion)
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
})
