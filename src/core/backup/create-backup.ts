import { VaultError } from '../errors.js'
import type { HeldLock } from '../runtime/db-lock.js'
import type { BackupDeps } from './backup-deps.js'
import { type BackupRecord, getBackup } from './backup-records.js'
import { takeMaintenance } from './interrupted-work.js'
import { archiveFileName } from './manifest.js'
import { pruneOldBackups } from './retention.js'
import { storedBytes, writeArchive } from './write-archive.js'

export type CreateBackupDeps = Pick<
  BackupDeps,
  | 'database'
  | 'blobs'
  | 'thumbnails'
  | 'createSha256'
  | 'compression'
  | 'clock'
  | 'logger'
  | 'backups'
  | 'service'
  | 'liveness'
>

const progressEveryMs = 1000

/**
 * Starts a full backup and returns its record at once; the work goes on in the background
 * (`done` settles when it ends, for the CLI and tests). The archive streams straight to the
 * backup directory under a temporary name, so memory stays flat at any vault size.
 */
export async function startBackup(
  deps: CreateBackupDeps,
  createdBy: string | null,
): Promise<{ record: BackupRecord; done: Promise<BackupRecord> }> {
  const { db } = deps.database
  const { limit } = deps.backups
  if (limit) {
    const bytes = await storedBytes(db)
    if (bytes > limit.bytes)
      throw new VaultError(
        'not_supported_on_this_runtime',
        `A backup here holds at most ${limit.bytes} bytes of files, and the library holds ${bytes}: ${limit.reason}`,
      )
  }
  const lock = await takeMaintenance(deps, 'backup')
  const startedAt = deps.clock.now()
  const id = crypto.randomUUID()
  const row = {
    id,
    status: 'running' as const,
    file_name: archiveFileName(id, startedAt),
    created_by: createdBy,
    started_at: startedAt.toISOString(),
    s3_status: deps.backups.offsite ? ('pending' as const) : ('not_configured' as const),
    lock_token: lock.token,
  }
  try {
    await db.insertInto('backups').values(row).execute()
  } catch (error) {
    await lock.release()
    throw error
  }
  const done = runBackup(deps, row.id, row.file_name, startedAt, lock)
  done.catch(() => {})
  return { record: await getBackup(db, id), done }
}

async function runBackup(
  deps: CreateBackupDeps,
  id: string,
  fileName: string,
  startedAt: Date,
  lock: HeldLock,
): Promise<BackupRecord> {
  const { db } = deps.database
  let outcome: { status: 'complete' | 'failed'; error: string | null }
  try {
    let lastReport = 0
    // Reports are chained so a slow one never lands after (and undoes) a later one.
    let reported = Promise.resolve()
    const archive = await writeArchive(deps, {
      id,
      fileName,
      createdAt: startedAt,
      includeFiles: true,
      onProgress(bytesDone, bytesTotal) {
        const now = deps.clock.now().getTime()
        if (now - lastReport < progressEveryMs) return
        lastReport = now
        reported = reported
          .then(() =>
            db
              .updateTable('backups')
              .set({ bytes_done: bytesDone, bytes_total: bytesTotal })
              .where('id', '=', id)
              .execute(),
          )
          .then(
            () => {},
            () => {},
          )
      },
    })
    await reported
    const archived = archive.manifest.entries.reduce((total, entry) => total + entry.size, 0)
    await db
      .updateTable('backups')
      .set({
        bytes_done: archived,
        bytes_total: archived,
        size: archive.size,
        sha256: archive.sha256,
        manifest: JSON.stringify(archive.manifest),
      })
      .where('id', '=', id)
      .execute()
    deps.logger.info('backup archived', { backup_id: id, file_name: fileName })
    // The archive stands from here on: a failed copy or prune is reported, not fatal.
    await copyOffsite(deps, id, fileName, archive.sha256)
    await pruneOldBackups(deps, id)
    outcome = { status: 'complete', error: null }
  } catch (error) {
    outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) }
    deps.logger.error('backup failed', { backup_id: id, error: outcome.error })
  }
  if (lock.lost())
    deps.logger.warn('the backup paused longer than its lock lease and another process took the lock over', {
      backup_id: id,
    })
  // Released before the final status shows, so a client that sees it can start the next backup or restore.
  await lock
    .release()
    .catch((error: Error) =>
      deps.logger.warn('releasing the backup lock failed; its lease lapses within 15 s', { error: error.message }),
    )
  await db
    .updateTable('backups')
    .set({ ...outcome, finished_at: deps.clock.now().toISOString() })
    .where('id', '=', id)
    .execute()
  return getBackup(db, id)
}

/**
 * Copies the finished archive to the bucket, when there is one, and checks it by reading it
 * back and hashing it. A failed copy leaves the local backup standing; the failure is on the record.
 */
async function copyOffsite(deps: CreateBackupDeps, id: string, fileName: string, sha256: string): Promise<void> {
  const { db } = deps.database
  const { local, offsite } = deps.backups
  if (!offsite) return
  try {
    const archive = await local.read(fileName)
    if (!archive) throw new Error('the archive left the backup directory before it could be copied')
    await offsite.write(fileName, archive)
    const copy = await offsite.read(fileName)
    if (!copy || (await hashStream(deps, copy)) !== sha256)
      throw new Error('the copy in the bucket does not match the archive')
    await db.updateTable('backups').set({ s3_status: 'uploaded', s3_error: null }).where('id', '=', id).execute()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    deps.logger.warn('backup copy to the bucket failed', {
      backup_id: id,
      error: message,
      cause: String((error as Error).cause ?? ''),
    })
    await db.updateTable('backups').set({ s3_status: 'failed', s3_error: message }).where('id', '=', id).execute()
  }
}

async function hashStream(deps: Pick<BackupDeps, 'createSha256'>, stream: ReadableStream<Uint8Array>): Promise<string> {
  const hash = deps.createSha256()
  const reader = stream.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return hash.digestHex()
    hash.update(value)
  }
}
