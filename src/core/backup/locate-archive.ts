import { VaultError } from '../errors.js'
import type { BackupDeps } from './backup-deps.js'
import { type BackupManifest, parseArchiveFileName } from './manifest.js'

/** An archive to restore from, wherever it is. */
export interface ArchiveSource {
  /** Where it was found: `local` (the backup directory), `s3`, or `file` (a path given to the CLI). */
  location: string
  fileName: string
  /** Bytes of the `.tar.gz`, when known before reading it. */
  size: number | null
  /** SHA-256 of the `.tar.gz` recorded when it was made, when this install made it. */
  expectedSha256: string | null
  /** The catalogue's copy of its manifest, when known: lets an unusable archive be refused before it is read. */
  knownManifest: BackupManifest | null
  open(): Promise<ReadableStream<Uint8Array>>
}

/**
 * Finds the archive of a backup: by the catalogue's file name, or, for a backup the
 * catalogue does not know (a fresh install restoring an older one's archive), by the id
 * every archive name carries. The backup directory is searched first, then the bucket.
 */
export async function locateArchive(
  deps: Pick<BackupDeps, 'database' | 'backups'>,
  backupId: string,
): Promise<ArchiveSource> {
  const row = await deps.database.db.selectFrom('backups').selectAll().where('id', '=', backupId).executeTakeFirst()
  const matches = (name: string) => (row ? name === row.file_name : parseArchiveFileName(name)?.backupId === backupId)
  const { local, offsite } = deps.backups
  const unreachable: string[] = []
  for (const sink of offsite ? [local, offsite] : [local]) {
    const archives = await sink.list().catch((error: unknown) => {
      unreachable.push(`${sink.kind}: ${error instanceof Error ? error.message : String(error)}`)
      return []
    })
    const found = archives.find((archive) => matches(archive.name))
    if (!found) continue
    return {
      location: sink.kind,
      fileName: found.name,
      size: found.size,
      expectedSha256: row?.sha256 ?? null,
      knownManifest: row?.manifest ? (JSON.parse(row.manifest) as BackupManifest) : null,
      async open() {
        const stream = await sink.read(found.name)
        if (!stream) throw new VaultError('not_found', `The archive ${found.name} disappeared before it could be read.`)
        return stream
      },
    }
  }
  if (unreachable.length > 0) {
    throw new VaultError(
      'backup_location_unreachable',
      `The archive of backup ${backupId} is not in the backup directory, and ${unreachable.join('; ')}.`,
    )
  }
  const places = offsite ? 'the backup directory or the bucket' : 'the backup directory'
  throw new VaultError('not_found', `No archive of backup ${backupId} is in ${places}.`)
}
