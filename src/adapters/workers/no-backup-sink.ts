import type { BackupSink } from '../../core/backup/backup-sink.js'
import { VaultError } from '../../core/errors.js'
import { backupsNeedABucket } from './workers-limits.js'

/**
 * The backup place of a Worker without a backup bucket: it holds no archive, and writing one fails
 * with the 501 that `POST /api/v1/backups` already answers there (workers-limits.ts).
 */
export const noBackupSink: BackupSink = {
  kind: 'none',
  location: 'none: no backup bucket is configured (VAULT_BACKUP_S3_*)',
  write: async () => {
    throw new VaultError('not_supported_on_this_runtime', backupsNeedABucket)
  },
  read: async () => null,
  list: async () => [],
  delete: async () => {},
  checkHealth: async () => ({ status: 'pass', details: { kind: 'none' } }),
}
