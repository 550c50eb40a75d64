import type { D1Database } from '@cloudflare/workers-types'
import { Kysely } from 'kysely'
import { createVaultDatabase, type VaultDatabase } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'
import { sqliteDialect } from '../sqlite/sqlite-dialect.js'
import { D1Dialect } from './d1-dialect.js'
import { d1Snapshots } from './d1-snapshots.js'

/**
 * The vault's database on Cloudflare D1: SQLite, so the SQLite spellings (FTS5 search, the name
 * sort key) and the same migrations apply. Backups hold it as an SQL dump of up to
 * `maxSnapshotBytes` (d1-snapshots.ts).
 */
export function openD1Database(d1: D1Database, options: { maxSnapshotBytes: number }): VaultDatabase {
  const db = new Kysely<Database>({ dialect: new D1Dialect(d1) })
  return createVaultDatabase(db, 'sqlite', {
    dialect: sqliteDialect,
    ...d1Snapshots(d1, db, options.maxSnapshotBytes),
  })
}
