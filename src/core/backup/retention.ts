import type { BackupDeps } from './create-backup.js'
import { parseArchiveFileName } from './manifest.js'

const dayMs = 24 * 60 * 60 * 1000

/**
 * Removes archives older than `VAULT_BACKUP_RETENTION_DAYS` from every sink (0 keeps all),
 * after a successful backup. The age comes from the archive's name, which records when the
 * backup started; files that are not archives of ours are never touched, and neither is the
 * backup just made. A sink that cannot be pruned is logged and left for the next backup.
 */
export async function pruneOldBackups(deps: BackupDeps, keepId: string): Promise<void> {
  if (deps.backupRetentionDays === 0) return
  const cutoff = deps.clock.now().getTime() - deps.backupRetentionDays * dayMs
  for (const sink of deps.backupSinks) {
    try {
      for (const archive of await sink.list()) {
        const parsed = parseArchiveFileName(archive.name)
        if (!parsed || parsed.backupId === keepId || parsed.createdAt.getTime() >= cutoff) continue
        await sink.delete(archive.name)
        deps.logger.info('old backup pruned', { file_name: archive.name, sink: sink.kind })
        if (sink.kind === 'local')
          await deps.database.db.deleteFrom('backups').where('id', '=', parsed.backupId).execute()
      }
    } catch (error) {
      // An unreachable bucket must not fail the backup that was just made; the next one retries.
      deps.logger.warn('pruning old backups failed', {
        sink: sink.kind,
        error: error instanceof Error ? error.message : String(error),
      })
    }
  }
}
