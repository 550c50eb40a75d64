import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { StorageDeps } from '../blobs/storage-deps.js'
import type { Compression } from '../runtime/compression.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { BackupSink } from './backup-sink.js'

/** Where backup archives go and how long they are kept. */
export interface BackupTargets {
  /** The backup directory: every archive is written here first, and restores look here first. */
  local: BackupSink
  /**
   * The optional bucket (`VAULT_BACKUP_S3_*`) each finished archive is copied to. One at most:
   * a backup record holds one copy status.
   */
  offsite: BackupSink | null
  /** `VAULT_BACKUP_RETENTION_DAYS`: archives older than this are pruned; 0 keeps them all. */
  retentionDays: number
  /**
   * The most a backup (its files' bytes) or a restore (its archive's bytes) may hold where the
   * runtime bounds it, and why (Cloudflare Workers: a backup runs in the 30 s a Worker may go on
   * after its answer); larger ones answer 501. Absent: unbounded.
   */
  limit?: { bytes: number; reason: string }
}

/** What backups, restores and their bookkeeping take; each function picks its part. */
export interface BackupDeps
  extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'liveness' | 'logger'>,
    StorageDeps,
    Pick<AccountsDeps, 'keys' | 'confirmedCredentials'> {
  /** gzip for backup archives. */
  compression: Compression
  backups: BackupTargets
}
