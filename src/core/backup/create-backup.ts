import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { readSchemaVersion } from '../db/migrate.js'
import type { Deps } from '../deps.js'
import { conflict } from '../errors.js'
import { acquireLock, type HeldLock } from '../runtime/db-lock.js'
import { toBackupRecord, type BackupRecord } from './backup-records.js'
import { maintenanceLockName } from './maintenance-lock.js'
import { archiveFileName, manifestPath, type BackupManifest, type ManifestEntry } from './manifest.js'
import { pruneOldBackups } from './retention.js'
import { createTarWriter } from './tar-archive.js'

export type BackupDeps = Pick<Deps, 'database' | 'blobs' | 'thumbnails' | 'createSha256' | 'compression' | 'clock' | 'logger' | 'backupSinks' | 'service' | 'backupRetentionDays'>

const progressEveryMs = 1000

/**
 * Starts a full backup and returns its record at once; the work goes on in the background
 * (`done` settles when it ends, for the CLI and tests). The archive streams straight to the
 * backup directory under a temporary name, so memory stays flat at any vault size.
 */
export async function startBackup(deps: BackupDeps, createdBy: string | null): Promise<{ record: BackupRecord; done: Promise<BackupRecord> }> {
  const { db } = deps.database
  const lock = await acquireLock(db, deps.clock, maintenanceLockName, 'backup')
  if ('heldBy' in lock) throw conflict('maintenance_in_progress', `A ${lock.heldBy} is running; try again when it has finished.`)
  const startedAt = deps.clock.now()
  const id = crypto.randomUUID()
  const row = {
    id,
    status: 'running' as const,
    file_name: archiveFileName(id, startedAt),
    created_by: createdBy,
    started_at: startedAt.toISOString(),
    s3_status: deps.backupSinks.some((sink) => sink.kind === 's3') ? ('pending' as const) : ('not_configured' as const),
  }
  try {
    await db.insertInto('backups').values(row).execute()
  } catch (error) {
    await lock.held.release()
    throw error
  }
  const done = runBackup(deps, row.id, row.file_name, startedAt, lock.held)
  done.catch(() => {})
  return { record: toBackupRecord(await getBackupRow(db, id)), done }
}

async function runBackup(deps: BackupDeps, id: string, fileName: string, startedAt: Date, lock: HeldLock): Promise<BackupRecord> {
  const { db } = deps.database
  try {
    await writeArchive(deps, id, fileName, startedAt)
    deps.logger.info('backup archived', { backup_id: id, file_name: fileName })
    // The archive stands from here on: a failed copy or prune is reported, not fatal.
    await copyToBuckets(deps, id, fileName)
    await pruneOldBackups(deps, id)
    await db.updateTable('backups').set({ status: 'complete', finished_at: deps.clock.now().toISOString() }).where('id', '=', id).execute()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    deps.logger.error('backup failed', { backup_id: id, error: message })
    await db.updateTable('backups').set({ status: 'failed', error: message, finished_at: deps.clock.now().toISOString() }).where('id', '=', id).execute()
  } finally {
    await lock.release()
  }
  return toBackupRecord(await getBackupRow(db, id))
}

/**
 * Database snapshot first, then every blob and thumbnail, then the manifest. Files only
 * reference blobs that were stored before their row was written, so every blob the snapshot
 * needs is already there when the blob listing runs; blobs uploaded meanwhile are extra.
 */
async function writeArchive(deps: BackupDeps, id: string, fileName: string, startedAt: Date): Promise<BackupManifest> {
  const { db } = deps.database
  const snapshot = await deps.database.snapshot()
  try {
    const bytesTotal = snapshot.size + (await storedBytes(db))
    let bytesDone = 0
    let lastReport = 0
    const reportProgress = async (force = false) => {
      const now = Date.now()
      if (!force && now - lastReport < progressEveryMs) return
      lastReport = now
      await db.updateTable('backups').set({ bytes_done: bytesDone, bytes_total: Math.max(bytesTotal, bytesDone) }).where('id', '=', id).execute()
    }
    await reportProgress(true)

    const tar = createTarWriter(deps.createSha256, startedAt, (bytes) => (bytesDone += bytes))
    const archiveHash = deps.createSha256()
    let archiveSize = 0
    const measured = tar.stream.pipeThrough(deps.compression.gzip()).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          archiveHash.update(chunk)
          archiveSize += chunk.byteLength
          controller.enqueue(chunk)
          void reportProgress().catch(() => {})
        },
      }),
    )
    const local = deps.backupSinks.find((sink) => sink.kind === 'local')!
    const written = local.write(fileName, measured)

    const entries: ManifestEntry[] = []
    const counts = { blobs: 0, thumbnails: 0 }
    const manifest = await (async () => {
      entries.push(await tar.add(`db/${snapshot.fileName}`, snapshot.size, snapshot.stream()))
      for (const [store, folder, count] of [
        [deps.blobs, 'blobs', 'blobs'],
        [deps.thumbnails, 'thumbs', 'thumbnails'],
      ] as const) {
        for await (const blob of store.list()) {
          const body = await store.get(blob.key)
          if (!body) continue // removed since it was listed: nothing in the snapshot refers to it
          entries.push(await tar.add(`${folder}/${blob.key}`, blob.size, body.stream))
          counts[count]++
        }
      }
      const complete: BackupManifest = {
        format: 'model-vault-backup',
        format_version: 1,
        backup_id: id,
        created_at: startedAt.toISOString(),
        app_version: deps.service.version,
        schema_version: await readSchemaVersion(db),
        database_kind: deps.database.kind,
        storage_kind: deps.blobs.kind,
        installation_id: (await db.selectFrom('installation').select('id').executeTakeFirstOrThrow()).id,
        counts: { ...(await rowCounts(db)), ...counts },
        entries,
      }
      const manifestBytes = new TextEncoder().encode(JSON.stringify(complete, null, 1))
      await tar.add(manifestPath, manifestBytes.byteLength, new Blob([manifestBytes]).stream())
      tar.finish()
      return complete
    })().catch((error: Error) => {
      tar.fail(error)
      throw error
    })
    await written
    await db
      .updateTable('backups')
      .set({
        bytes_done: bytesDone,
        bytes_total: bytesDone,
        size: archiveSize,
        sha256: archiveHash.digestHex(),
        manifest: JSON.stringify(manifest),
      })
      .where('id', '=', id)
      .execute()
    return manifest
  } finally {
    await snapshot.dispose()
  }
}

/**
 * Copies the finished archive to each bucket and checks it by reading it back and hashing
 * it. A failed copy leaves the local backup standing; the failure is on the record.
 */
async function copyToBuckets(deps: BackupDeps, id: string, fileName: string): Promise<void> {
  const { db } = deps.database
  const local = deps.backupSinks.find((sink) => sink.kind === 'local')!
  const { sha256 } = await getBackupRow(db, id)
  for (const sink of deps.backupSinks.filter((s) => s.kind === 's3')) {
    try {
      await sink.write(fileName, (await local.read(fileName))!)
      const copy = await sink.read(fileName)
      if (!copy || (await hashStream(deps, copy)) !== sha256) throw new Error('the copy in the bucket does not match the archive')
      await db.updateTable('backups').set({ s3_status: 'uploaded', s3_error: null }).where('id', '=', id).execute()
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      deps.logger.warn('backup copy to the bucket failed', { backup_id: id, error: message })
      await db.updateTable('backups').set({ s3_status: 'failed', s3_error: message }).where('id', '=', id).execute()
    }
  }
}

async function hashStream(deps: Pick<Deps, 'createSha256'>, stream: ReadableStream<Uint8Array>): Promise<string> {
  const hash = deps.createSha256()
  const reader = stream.getReader()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return hash.digestHex()
    hash.update(value)
  }
}

async function storedBytes(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('files').select((eb) => eb.fn.sum<number>('size').as('bytes')).executeTakeFirst()
  return Number(row?.bytes ?? 0)
}

async function rowCounts(db: Kysely<Database>) {
  const count = async (table: 'users' | 'models' | 'files') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)
  return { users: await count('users'), models: await count('models'), files: await count('files') }
}

export async function getBackupRow(db: Kysely<Database>, id: string) {
  return db.selectFrom('backups').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}
