import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { createVaultDatabase, type VaultDatabase } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'

/**
 * Opens (creating if needed) an SQLite database file with better-sqlite3. WAL lets readers
 * run beside the one writer; foreign keys are off by default in SQLite and we want them on;
 * the busy timeout makes a second process wait for the write lock instead of failing.
 */
export function openSqliteDatabase(file: string): VaultDatabase {
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  return createVaultDatabase(new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), 'sqlite')
}
