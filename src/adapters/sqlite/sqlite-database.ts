import { readFile, rm } from 'node:fs/promises'
import SQLite from 'better-sqlite3'
import { type DatabaseConnection, type Driver, Kysely, SqliteDialect } from 'kysely'
import { readSqlDump } from '../../core/backup/sql-dump.js'
import { invalidArchive } from '../../core/backup/verify-archive.js'
import {
  countSnapshotRows,
  createVaultDatabase,
  type SnapshotCounts,
  type StagedDatabase,
  snapshotFileNames,
  type VaultDatabase,
} from '../../core/db/database.js'
import { guardWrites, type WriteGuard } from '../../core/db/guarded-writes.js'
import type { Database } from '../../core/db/schema.js'
import { VaultError } from '../../core/errors.js'
import { scratchPath, snapshotFromFile, writeScratchFile } from '../fs/scratch-file.js'
import { groupedWalSync, withDurableCommits } from './durable-commits.js'
import { searchVocabularyTable, sqliteFileDialect } from './sqlite-dialect.js'
import { type CachedSqliteDatabase, withStatementCache } from './statement-cache.js'

/**
 * Opens (creating if needed) an SQLite database file with better-sqlite3. WAL lets readers
 * run beside the one writer, and its commits are made durable in groups (durable-commits.ts); foreign keys are off by default in SQLite and we want them on;
 * the busy timeout makes a second process wait for the write lock instead of failing.
 * Snapshots use SQLite's online backup API: a consistent copy while writes go on. Every write
 * commits only past `writeGuard`, when given (core/db/guarded-writes.ts).
 */
export function openSqliteDatabase(
  file: string,
  options: { scratchDir: string; writeGuard?: WriteGuard },
): VaultDatabase {
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.exec(searchVocabularyTable)
  const cached = withStatementCache(sqlite)
  const dialect = new FullDiskAwareSqliteDialect(sqlite, cached, groupedWalSync(file))
  const db = new Kysely<Database>({
    dialect: options.writeGuard ? guardWrites(dialect, sqliteFileDialect, options.writeGuard) : dialect,
  })
  return createVaultDatabase(db, 'sqlite', {
    dialect: sqliteFileDialect,
    async snapshot() {
      const path = await scratchPath(options.scratchDir, '.sqlite')
      try {
        await sqlite.backup(path)
        return await snapshotFromFile(path, snapshotFileNames.sqlite, await countCopyRows(path))
      } catch (error) {
        await rm(path, { force: true })
        throw error
      }
    },
    restorableSnapshots: [snapshotFileNames.sqlite, snapshotFileNames.sqlDump],
    async stageRestore(fileName, body) {
      const staged =
        fileName === snapshotFileNames.sqlDump
          ? await loadSqlDump(options.scratchDir, body)
          : await writeScratchFile(options.scratchDir, '.sqlite', body)
      return stagedSqlite(staged, file, {
        holdingLive: (copy) => db.connection().execute(() => copy()),
        swapped: () => cached.schemaReplaced(),
      })
    },
  })
}

/**
 * Kysely's SQLite dialect with a full disk told apart. On SQLITE_FULL (and some I/O errors)
 * SQLite rolls the transaction back itself, and Kysely's own `rollback` then fails with "cannot
 * rollback - no transaction is active", hiding the cause; so the rollback is skipped when no
 * transaction is open, and a full disk becomes the domain's 507 `insufficient_storage`. Its
 * writes resolve once durable (durable-commits.ts).
 */
class FullDiskAwareSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SQLite.Database,
    cached: CachedSqliteDatabase,
    private readonly syncWal: () => Promise<void>,
  ) {
    super({ database: cached })
  }

  override createDriver(): Driver {
    const driver = super.createDriver()
    const acquire = driver.acquireConnection.bind(driver)
    const rollback = driver.rollbackTransaction.bind(driver)
    let wrapped: DatabaseConnection | undefined
    driver.acquireConnection = async () => {
      const connection = await acquire()
      wrapped ??= {
        // Kysely's SQLite connection throws synchronously, so the call is awaited inside try.
        async executeQuery(query) {
          try {
            return await connection.executeQuery(query)
          } catch (error) {
            throw fullDiskOr(error)
          }
        },
        streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
      }
      return wrapped
    }
    driver.rollbackTransaction = async (connection) => {
      if (this.sqlite.inTransaction) await rollback(connection)
    }
    return withDurableCommits(driver, this.sqlite, this.syncWal)
  }
}

function fullDiskOr(error: unknown): unknown {
  return (error as { code?: string }).code === 'SQLITE_FULL'
    ? new VaultError('insufficient_storage', 'The disk under the database is full (SQLITE_FULL); nothing was changed.')
    : error
}

/**
 * Runs the SQL dump of a Workers backup (core/backup/sql-dump.ts) into a new scratch SQLite file,
 * which then restores as any staged file does. Foreign keys are off while it loads: the dump
 * inserts table by table, not parents first.
 */
async function loadSqlDump(scratchDir: string, body: ReadableStream<Uint8Array>): Promise<string> {
  const dumpPath = await writeScratchFile(scratchDir, '.sql', body)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(dumpPath))
  } catch {
    throw invalidArchive('its database dump is not UTF-8 text.')
  } finally {
    await rm(dumpPath, { force: true })
  }
  const statements = readSqlDump(text)
  const path = await scratchPath(scratchDir, '.sqlite')
  const loaded = new SQLite(path)
  try {
    loaded.pragma('foreign_keys = OFF')
    loaded.transaction(() => {
      for (const statement of statements) loaded.exec(statement)
    })()
    return path
  } catch (error) {
    await rm(path, { force: true })
    const code = (error as { code?: string }).code ?? ''
    if (code.startsWith('SQLITE_') && code !== 'SQLITE_FULL')
      throw invalidArchive(`its database dump does not load (${(error as Error).message}).`)
    throw fullDiskOr(error)
  } finally {
    loaded.close()
  }
}

/**
 * The swap copies the staged file into the live one with SQLite's backup API, through a
 * connection of its own: one write transaction on the live database, so a killed process
 * leaves it untouched (uncommitted WAL frames are ignored), and every open connection,
 * ours and any other process's, reads the restored data afterwards. Renaming files instead
 * would leave open connections on the old file and race the WAL. The copy runs in steps, and the
 * live file stays write-locked from the first to the last: a write of this process in between
 * would wait in SQLite's busy handler, which sleeps on the event loop the steps need, and fail
 * after its timeout, stalling the process once per write. So the copy runs `holdingLive`, with
 * this process's own connection held, and its writes wait their turn for it instead. `swapped`
 * tells this process's statement cache that the tables may have a new shape.
 */
function stagedSqlite(
  stagedPath: string,
  liveFile: string,
  live: { holdingLive: (copy: () => Promise<void>) => Promise<void>; swapped: () => void },
): StagedDatabase {
  const removeStaged = () =>
    Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${stagedPath}${suffix}`, { force: true })))
  return {
    async swapIn(statements) {
      const staged = new SQLite(stagedPath)
      try {
        const check = quickCheck(staged)
        if (check !== 'ok') throw invalidArchive(`its database fails SQLite's check (${check}).`)
        const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: staged }) })
        for (const statement of statements(db)) await db.executeQuery(statement.compile())
        await live.holdingLive(() => copyInto(staged, liveFile))
        live.swapped()
      } finally {
        staged.close()
        await removeStaged()
      }
    },
    discard: async () => void (await removeStaged()),
  }
}

const busyRetryMs = 20
const busyTimeoutMs = 30_000

/**
 * better-sqlite3's backup resolves having copied nothing (0 pages) when its first step finds
 * the live database write-locked by another connection, so that answer is retried until the
 * lock is free; any valid database has at least one page.
 */
async function copyInto(staged: SQLite.Database, liveFile: string): Promise<void> {
  const deadline = Date.now() + busyTimeoutMs
  while ((await staged.backup(liveFile)).totalPages === 0) {
    if (Date.now() > deadline)
      throw new Error(`the live database stayed write-locked for ${busyTimeoutMs / 1000} s; nothing was changed`)
    await new Promise((resolve) => setTimeout(resolve, busyRetryMs))
  }
}

function quickCheck(database: SQLite.Database): string {
  try {
    return String(database.pragma('quick_check', { simple: true }))
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * Rows in a finished snapshot file: what the archive holds, whatever was written since.
 * Opened read-write: a read-only connection to a WAL-mode file leaves `-wal` and `-shm` behind.
 */
async function countCopyRows(path: string): Promise<SnapshotCounts> {
  const copy = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(path) }) })
  try {
    return await countSnapshotRows(copy)
  } finally {
    await copy.destroy()
  }
}
