import type { Kysely } from 'kysely'
import { readSchemaVersion } from '../db/migrate.js'
import type { Database } from '../db/schema.js'
import type { BackupDeps } from './backup-deps.js'
import { type BackupManifest, type ManifestEntry, manifestPath } from './manifest.js'
import { createTarWriter } from './tar-archive.js'

export type ArchiveDeps = Pick<
  BackupDeps,
  'database' | 'blobs' | 'thumbnails' | 'createSha256' | 'compression' | 'backups' | 'service'
>

export interface WrittenArchive {
  manifest: BackupManifest
  /** Bytes and SHA-256 of the `.tar.gz`. */
  size: number
  sha256: string
}

export interface ArchiveOptions {
  id: string
  fileName: string
  createdAt: Date
  /**
   * Blobs and thumbnails too (a backup), or the database alone (a restore's safety copy:
   * a restore never deletes stored files, so the database is all it replaces).
   */
  includeFiles: boolean
  /** Bytes archived so far of the expected total, called as the archive grows. */
  onProgress(bytesDone: number, bytesTotal: number): void
}

/**
 * Streams an archive into the backup directory: the database snapshot first, then every
 * blob and thumbnail, then the manifest. Files only reference blobs that were stored before
 * their row was written, so every blob the snapshot needs is already there when the blob
 * listing runs; blobs uploaded meanwhile are extra. Memory stays flat at any vault size.
 */
export async function writeArchive(deps: ArchiveDeps, options: ArchiveOptions): Promise<WrittenArchive> {
  const { db } = deps.database
  const snapshot = await deps.database.snapshot()
  try {
    const bytesTotal = snapshot.size + (options.includeFiles ? await storedBytes(db) : 0)
    let bytesDone = 0
    const tar = createTarWriter(deps.createSha256, options.createdAt, (bytes) => {
      bytesDone += bytes
      options.onProgress(bytesDone, Math.max(bytesTotal, bytesDone))
    })
    const archiveHash = deps.createSha256()
    let size = 0
    const measured = tar.stream.pipeThrough(deps.compression.gzip()).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          archiveHash.update(chunk)
          size += chunk.byteLength
          controller.enqueue(chunk)
        },
      }),
    )
    const written = deps.backups.local.write(options.fileName, measured)
    // A sink that fails (a full disk) stops the entries being added, rather than leaving them
    // waiting on a stream nobody reads and its rejection unheard until they are done.
    written.catch((error: Error) => tar.fail(error))

    const entries: ManifestEntry[] = []
    const counts = { blobs: 0, thumbnails: 0 }
    const manifest = await (async () => {
      entries.push(await tar.add(`db/${snapshot.fileName}`, snapshot.size, snapshot.stream()))
      const stores = options.includeFiles
        ? ([
            [deps.blobs, 'blobs', 'blobs'],
            [deps.thumbnails, 'thumbs', 'thumbnails'],
          ] as const)
        : []
      for (const [store, folder, count] of stores) {
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
        backup_id: options.id,
        created_at: options.createdAt.toISOString(),
        app_version: deps.service.version,
        schema_version: await readSchemaVersion(db),
        database_kind: deps.database.kind,
        storage_kind: deps.blobs.kind,
        installation_id: (await db.selectFrom('installation').select('id').executeTakeFirstOrThrow()).id,
        counts: { ...snapshot.counts, ...counts },
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
    return { manifest, size, sha256: archiveHash.digestHex() }
  } finally {
    await snapshot.dispose()
  }
}

/** Bytes of every stored file, as the catalogue records them: what a full backup archives besides the database. */
export async function storedBytes(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select((eb) => eb.fn.sum<number>('size').as('bytes'))
    .executeTakeFirst()
  return Number(row?.bytes ?? 0)
}
