import type { D1Database } from '@cloudflare/workers-types'
import { Kysely } from 'kysely'
import { createVaultDatabase, type VaultDatabase } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'
import { notSupportedOnThisRuntime } from '../../core/errors.js'
import { sqliteDialect } from '../sqlite/sqlite-dialect.js'
import { D1Dialect } from './d1-dialect.js'
import { backupsNotSupported } from './workers-limits.js'

/**
 * The vault's database on Cloudflare D1: SQLite, so the SQLite spellings (FTS5 search, the name
 * sort key) and the same migrations apply. It cannot be copied for a backup (workers-limits.ts).
 */
export function openD1Database(d1: D1Database): VaultDatabase {
  return createVaultDatabase(new Kysely<Database>({ dialect: new D1Dialect(d1) }), 'sqlite', {
    dialect: sqliteDialect,
    snapshot: async () => {
      throw notSupportedOnThisRuntime(backupsNotSupported)
    },
    stageRestore: async () => {
      throw notSupportedOnThisRuntime(backupsNotSupported)
    },
  })
}
