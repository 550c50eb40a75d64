import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { readFileStream } from '../adapters/fs/file-stream.js'
import { createNativeSha256 } from '../adapters/node/native-sha256.js'
import { exitWith } from '../adapters/node/node-config.js'
import { zlibCompression } from '../adapters/node/zlib-compression.js'
import { getBackup, listBackups } from '../core/backup/backup-records.js'
import { startBackup } from '../core/backup/create-backup.js'
import { type ArchiveSource, locateArchive } from '../core/backup/locate-archive.js'
import { restoreArchive } from '../core/backup/restore-backup.js'
import type { RestoreProgress } from '../core/backup/restore-progress.js'
import { verifyArchive } from '../core/backup/verify-archive.js'
import type { Deps } from '../core/deps.js'
import { VaultError } from '../core/errors.js'

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/* `model-vault backup …`: the same backups and restores the API makes, from the shell. */

/** `model-vault backup list`: the backups, newest first. */
export async function listBackupsCommand(deps: Deps): Promise<void> {
  for (const backup of await listBackups(deps.database.db)) {
    const s3 = backup.locations.find((l) => l.kind === 's3')
    console.log(
      `${backup.started_at}\t${backup.status}\t${backup.size === null ? '-' : mib(backup.size)}\t${backup.file_name}${s3 ? `\ts3:${s3.status}` : ''}`,
    )
  }
}

/** `model-vault backup create`: a full backup, with its progress every 2 s. */
export async function createBackupCommand(deps: Deps): Promise<void> {
  const { record, done } = await startBackup(deps, null).catch((error: Error) => exitWith(error.message))
  console.log(`Backing up to ${record.file_name}`)
  const progress = setInterval(() => {
    void getBackup(deps.database.db, record.id).then((current) => {
      console.log(`  ${Math.round(current.progress * 100)}%  ${mib(current.bytes_done)}`)
    })
  }, 2000)
  const finished = await done.finally(() => clearInterval(progress))
  if (finished.status !== 'complete') exitWith(`Backup failed: ${finished.error}`)
  const s3 = finished.locations.find((l) => l.kind === 's3')
  console.log(
    `Complete: ${mib(finished.size ?? 0)}, sha256 ${finished.sha256}${s3 ? `; S3 copy ${s3.status}${s3.error ? ` (${s3.error})` : ''}` : ''}`,
  )
  if (s3?.status === 'failed') process.exitCode = 1
}

/**
 * `model-vault backup verify <archive>`: checks an archive against its manifest without a
 * database or a running service, e.g. before restoring onto a fresh machine.
 */
export async function verifyArchiveFile(path: string): Promise<void> {
  const manifest = await verifyArchive(
    { createSha256: createNativeSha256, compression: zlibCompression },
    readFileStream(path),
  ).catch((error: Error) => exitWith(`${path}: ${error.message}`))
  const { counts } = manifest
  console.log(
    `OK: backup ${manifest.backup_id} of ${manifest.created_at}, model-vault ${manifest.app_version}, schema ${manifest.schema_version}, ` +
      `${manifest.database_kind} database; ${counts.models} models, ${counts.files} files, ${counts.blobs} blobs, ${counts.thumbnails} thumbnails, ${counts.users} users.`,
  )
}

/**
 * `model-vault backup restore <backup-id | archive.tar.gz>`: the restore `POST
 * /api/v1/backups/{id}/restore` does, for when the API cannot start, e.g. onto a fresh data
 * directory. An id is looked up like the API does; a path is read where it is.
 */
export async function restoreBackupCommand(deps: Deps, target: string): Promise<void> {
  const isFile = target.endsWith('.tar.gz') || target.includes('/')
  // A file is checked before the restore takes the lock: exiting while holding it would leave it for a minute.
  const file = isFile ? await fileSource(target) : undefined
  const findSource = file ? async () => file : () => locateArchive(deps, target)
  let latest: RestoreProgress | undefined
  const progress = setInterval(() => {
    if (!latest) return
    const share = latest.bytes_total ? ` ${Math.round((latest.bytes_done / latest.bytes_total) * 100)}%` : ''
    console.log(`  ${latest.phase}${share}  ${mib(latest.bytes_done)}`)
  }, 2000)
  console.log(`Restoring from ${target}`)
  const result = await restoreArchive(deps, findSource, (current) => (latest = current))
    .catch((error: Error) =>
      exitWith(
        error instanceof VaultError && error.code === 'restore_unfinished'
          ? error.message
          : `Restore failed, nothing was changed: ${error.message}`,
      ),
    )
    .finally(() => clearInterval(progress))
  const { counts } = result.manifest
  console.log(
    `Restored backup ${result.backup_id} of ${result.manifest.created_at} (model-vault ${result.manifest.app_version}): ` +
      `${counts.models} models, ${counts.files} files, ${counts.users} users; ${result.added.blobs} blobs and ${result.added.thumbnails} thumbnails added.`,
  )
  console.log(`Schema version ${result.schema_version}. Safety copy of the previous database: ${result.safety_copy}`)
  console.log(`${result.sessions_revoked} sessions ended: everyone signs in again.`)
  console.log(`API keys in the restored data (a key revoked after the backup was made is live again):`)
  for (const key of result.api_keys) {
    console.log(`  ${key.revoked_at ? 'revoked' : 'ACTIVE '}  ${key.prefix}  ${key.username}\t${key.name}`)
  }
}

async function fileSource(path: string): Promise<ArchiveSource> {
  const info = await stat(path).catch(() => exitWith(`${path}: no such file`))
  return {
    location: 'file',
    fileName: basename(path),
    size: info.size,
    expectedSha256: null,
    knownManifest: null,
    open: async () => readFileStream(path),
  }
}
