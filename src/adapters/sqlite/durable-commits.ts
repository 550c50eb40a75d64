import { open } from 'node:fs/promises'
import type SQLite from 'better-sqlite3'
import type { Driver } from 'kysely'
import { errorCode } from '../fs/fs-blob-store.js'
import { groupedSync } from '../fs/grouped-sync.js'

/**
 * `driver` (over `sqlite`, in WAL mode with `synchronous = NORMAL`) with every write durable by the
 * time its query or transaction resolves: past `syncWal` (`groupedWalSync`). NORMAL commits without an fsync, which survives a killed
 * process but not a power cut; FULL would fsync the WAL on this thread, under the connection's
 * lock, once per commit. Instead a connection that wrote is released first, so other queries go
 * on, and its caller then waits for an fsync of the WAL begun after its commit, shared by every
 * commit of the moment (grouped-sync.ts): a burst of small uploads pays for a few fsyncs, not one
 * each, and none of them on the event loop. Writes are seen by SQLite's `total_changes()`.
 */
export function withDurableCommits(driver: Driver, sqlite: SQLite.Database, syncWal: () => Promise<void>): Driver {
  const totalChanges = sqlite.prepare('select total_changes()').pluck()
  let synced = totalChanges.get() as number
  const release = driver.releaseConnection.bind(driver)
  driver.releaseConnection = async (connection) => {
    const changes = sqlite.inTransaction ? synced : (totalChanges.get() as number)
    await release(connection)
    if (changes === synced) return
    synced = changes
    await syncWal()
  }
  return driver
}

/** fsyncs the WAL of the database file at `path`, grouped (grouped-sync.ts). */
export const groupedWalSync = (path: string) => groupedSync(() => syncFile(`${path}-wal`))

/** fsyncs a file's data; a file that is not there (SQLite removed the WAL on close) has nothing to sync. */
async function syncFile(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(path, 'r+')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return
    throw error
  }
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
