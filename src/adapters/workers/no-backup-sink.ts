import type { BackupSink } from '../../core/backup/backup-sink.js'
import { notSupportedOnThisRuntime } from '../../core/errors.js'
import { backupsNotSupported } from './workers-limits.js'

/**
 * The backup directory of a runtime without one: it holds no archive, and writing one fails with
 * the 501 that `POST /api/v1/backups` already answers there (workers-limits.ts).
 */
export const noBackupSink: BackupSink = {
  kind: 'none',
  location: 'none: backups are not made on Cloudflare Workers',
  write: async () => {
    throw notSupportedOnThisRuntime(backupsNotSupported)
  },
  read: async () => null,
  list: async () => [],
  delete: async () => {},
  checkHealth: async () => ({ status: 'pass', details: { kind: 'none' } }),
}
