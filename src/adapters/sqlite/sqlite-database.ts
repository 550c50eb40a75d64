import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { rm } from 'node:fs/promises'
import { createVaultDatabase, type VaultDatabase } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'
import { scratchPath, snapshotFromFile } from '../fs/scratch-file.js'

/**
 * Opens (creating if needed) an SQLite database file with better-sqlite3. WAL lets readers
 * run beside the one writer; foreign keys are off by default in SQLite and we want them on;
 * the busy timeout makes a second process wait for the write lock instead of failing.
 * Snapshots use SQLite's online backup API: a consistent copy while writes go on.
 */
export function openSqliteDatabase(file: string, options: { scratchDir: string }): VaultDatabase {
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  const snapshot = async () => {
    const path = await scratchPath(options.scratchDir, '.sqlite')
    try {
      await sqlite.backup(path)
      return await snapshotFromFile(path, 'vault.sqlite')
    } catch (error) {
      await rm(path, { force: true })
      throw error
    }
  }
  return createVaultDatabase(new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), 'sqlite', snapshot)
}
