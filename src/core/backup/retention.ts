import type { BackupDeps } from './backup-deps.js'
import type { BackupSink } from './backup-sink.js'
import { parseArchiveFileName } from './manifest.js'

type RetentionDeps = Pick<BackupDeps, 'database' | 'backups' | 'clock' | 'logger'>

const dayMs = 24 * 60 * 60 * 1000

/**
 * Removes archives older than `VAULT_BACKUP_RETENTION_DAYS` from every sink (0 keeps all),
 * after a successful backup. The age comes from the archive's name, which records when the
 * backup started; files that are not archives of ours are never touched, and neither is the
 * backup just made. A sink that cannot be pruned is logged and left for the next backup.
 */
export async function pruneOldBackups(deps: RetentionDeps, keepId: string): Promise<void> {
  const { local, offsite, retentionDays } = deps.backups
  if (retentionDays === 0) return
  const cutoff = deps.clock.now().getTime() - retentionDays * dayMs
  // The catalogue lists the backup directory's archives: a backup leaves it with its local archive.
  await pruneSink(deps, local, keepId, cutoff, async (backupId) => {
    await deps.database.db.deleteFrom('backups').where('id', '=', backupId).execute()
  })
  if (offsite) await pruneSink(deps, offsite, keepId, cutoff)
}

async function pruneSink(
  deps: RetentionDeps,
  sink: BackupSink,
  keepId: string,
  cutoff: number,
  onPruned?: (backupId: string) => Promise<void>,
): Promise<void> {
  try {
    for (const archive of await sink.list()) {
      const parsed = parseArchiveFileName(archive.name)
      if (!parsed || parsed.backupId === keepId || parsed.createdAt.getTime() >= cutoff) continue
      await sink.delete(archive.name)
      deps.logger.info('old backup pruned', { file_name: archive.name, sink: sink.kind })
      await onPruned?.(parsed.backupId)
    }
  } catch (error) {
    // An unreachable bucket must not fail the backup that was just made; the next one retries.
    deps.logger.warn('pruning old backups failed', {
      sink: sink.kind,
      error: error instanceof Error ? error.message : String(error),
    })
  }
}
