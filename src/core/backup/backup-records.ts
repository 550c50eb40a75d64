import type { Selectable } from 'kysely'
import type { BackupCopyStatus, BackupsTable } from '../db/schema.js'
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

export function toBackupRecord(row: Selectable<BackupsTable>): BackupRecord {
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
