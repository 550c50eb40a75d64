import { toBackupRecord } from '../../core/backup/backup-records.js'
import { getBackupRow, startBackup } from '../../core/backup/create-backup.js'
import { verifyArchive } from '../../core/backup/verify-archive.js'
import type { Deps } from '../../core/deps.js'
import { exitWith } from './node-config.js'
import { readFileStream } from '../fs/file-stream.js'
import { createNativeSha256 } from './native-sha256.js'
import { zlibCompression } from './zlib-compression.js'

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/** `model-vault backup create|list`: the same backups the API makes, from the shell. */
export async function runBackupCommand(deps: Deps, command: string): Promise<void> {
  if (command === 'list') {
    const rows = await deps.database.db.selectFrom('backups').selectAll().orderBy('started_at', 'desc').execute()
    for (const backup of rows.map(toBackupRecord)) {
      const s3 = backup.locations.find((l) => l.kind === 's3')
      console.log(`${backup.started_at}\t${backup.status}\t${backup.size === null ? '-' : mib(backup.size)}\t${backup.file_name}${s3 ? `\ts3:${s3.status}` : ''}`)
    }
    return
  }
  if (command !== 'create') exitWith(`unknown command: backup ${command}`)
  const { record, done } = await startBackup(deps, null).catch((error: Error) => exitWith(error.message))
  console.log(`Backing up to ${record.file_name}`)
  const progress = setInterval(() => {
    void getBackupRow(deps.database.db, record.id).then((row) => {
      const current = toBackupRecord(row)
      console.log(`  ${Math.round(current.progress * 100)}%  ${mib(current.bytes_done)}`)
    })
  }, 2000)
  const finished = await done.finally(() => clearInterval(progress))
  if (finished.status !== 'complete') exitWith(`Backup failed: ${finished.error}`)
  const s3 = finished.locations.find((l) => l.kind === 's3')
  console.log(`Complete: ${mib(finished.size ?? 0)}, sha256 ${finished.sha256}${s3 ? `; S3 copy ${s3.status}${s3.error ? ` (${s3.error})` : ''}` : ''}`)
  if (s3?.status === 'failed') process.exitCode = 1
}

/**
 * `model-vault backup verify <archive>`: checks an archive against its manifest without a
 * database or a running service, e.g. before restoring onto a fresh machine.
 */
export async function verifyArchiveFile(path: string): Promise<void> {
  const manifest = await verifyArchive({ createSha256: createNativeSha256, compression: zlibCompression }, readFileStream(path)).catch(
    (error: Error) => exitWith(`${path}: ${error.message}`),
  )
  const { counts } = manifest
  console.log(
    `OK: backup ${manifest.backup_id} of ${manifest.created_at}, model-vault ${manifest.app_version}, schema ${manifest.schema_version}, ` +
      `${manifest.database_kind} database; ${counts.models} models, ${counts.files} files, ${counts.blobs} blobs, ${counts.thumbnails} thumbnails, ${counts.users} users.`,
  )
}
