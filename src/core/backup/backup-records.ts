import type { Kysely, Selectable } from 'kysely'
import type { BackupCopyStatus, BackupsTable, Database } from '../db/schema.js'
import { VaultError } from '../errors.js'
import type { BackupManifest } from './manifest.js'

/** A backup as the API shows it. Paths are not shown: the archive is named by `file_name`. */
export type BackupRecord = Pick<
  Selectable<BackupsTable>,
  | 'id'
  | 'status'
  | 'file_name'
  | 'created_by'
  | 'started_at'
  | 'finished_at'
  | 'bytes_done'
  | 'size'
  | 'sha256'
  | 'error'
> & {
  /** 0..1 while running (bytes archived of the expected total), 1 once complete. */
  progress: number
  locations: { kind: 'local' | 's3'; status: 'stored' | BackupCopyStatus; error: string | null }[]
  manifest: BackupManifest | null
}

/** Every backup in the catalogue, newest first. */
export async function listBackups(db: Kysely<Database>): Promise<BackupRecord[]> {
  const rows = await db.selectFrom('backups').selectAll().orderBy('started_at', 'desc').orderBy('id').execute()
  return rows.map(toBackupRecord)
}

/** One backup of the catalogue; 404 when there is none by that id. */
export async function getBackup(db: Kysely<Database>, id: string): Promise<BackupRecord> {
  const row = await db.selectFrom('backups').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No backup has the id ${id}.`)
  return toBackupRecord(row)
}

function toBackupRecord(row: Selectable<BackupsTable>): BackupRecord {
  const progress =
    row.status === 'complete' ? 1 : row.bytes_total > 0 ? Math.min(0.99, row.bytes_done / row.bytes_total) : 0
  return {
    id: row.id,
    status: row.status,
    file_name: row.file_name,
    created_by: row.created_by,
    started_at: row.started_at,
    finished_at: row.finished_at,
    progress,
    bytes_done: row.bytes_done,
    size: row.size,
    sha256: row.sha256,
    error: row.error,
    locations: [
      ...(row.size !== null ? [{ kind: 'local' as const, status: 'stored' as const, error: null }] : []),
      ...(row.s3_status === 'not_configured'
        ? []
        : [{ kind: 's3' as const, status: row.s3_status, error: row.s3_error }]),
    ],
    manifest: row.manifest ? (JSON.parse(row.manifest) as BackupManifest) : null,
  }
}
