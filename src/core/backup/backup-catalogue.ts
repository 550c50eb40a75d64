import type { BackupCopyStatus } from '../db/schema.js'
import type { BackupDeps } from './backup-deps.js'
import { parseArchiveFileName } from './manifest.js'

/**
 * Brings the backup catalogue in line with the archives that exist, after a restore put an
 * older catalogue in place: archives made after the restored backup are listed again (as
 * complete, their checksum unknown until verified), and copies still `pending` in the
 * restored catalogue get the bucket's answer. Returns how many archives were added.
 */
export async function reconcileBackupCatalogue(
  deps: Pick<BackupDeps, 'database' | 'backups' | 'logger'>,
): Promise<number> {
  const { db } = deps.database
  const { local, offsite: bucket } = deps.backups
  let inBucket: Set<string> | null = null
  if (bucket) {
    try {
      inBucket = new Set((await bucket.list()).map((archive) => archive.name))
    } catch (error) {
      deps.logger.warn('the bucket could not be listed to rebuild the backup catalogue', {
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }
  const copyStatus = (name: string): { s3_status: BackupCopyStatus; s3_error: string | null } => {
    if (!bucket) return { s3_status: 'not_configured', s3_error: null }
    if (!inBucket)
      return {
        s3_status: 'failed',
        s3_error: 'The bucket could not be listed when the catalogue was rebuilt after a restore.',
      }
    return inBucket.has(name)
      ? { s3_status: 'uploaded', s3_error: null }
      : { s3_status: 'failed', s3_error: 'Not in the bucket when the catalogue was rebuilt after a restore.' }
  }

  for (const row of await db
    .selectFrom('backups')
    .select(['id', 'file_name'])
    .where('s3_status', '=', 'pending')
    .where('status', '!=', 'running')
    .execute()) {
    await db.updateTable('backups').set(copyStatus(row.file_name)).where('id', '=', row.id).execute()
  }
  const known = new Set((await db.selectFrom('backups').select('id').execute()).map((row) => row.id))
  let added = 0
  for (const archive of await local.list()) {
    const parsed = parseArchiveFileName(archive.name)
    if (!parsed || known.has(parsed.backupId)) continue
    await db
      .insertInto('backups')
      .values({
        id: parsed.backupId,
        status: 'complete',
        file_name: archive.name,
        created_by: null,
        started_at: parsed.createdAt.toISOString(),
        bytes_done: archive.size,
        bytes_total: archive.size,
        size: archive.size,
        ...copyStatus(archive.name),
      })
      .execute()
    added++
  }
  return added
}
