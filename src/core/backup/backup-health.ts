import type { HealthCheckable } from '../health/component.js'
import type { BackupDeps } from './backup-deps.js'
import { interruptedBackupError, isBackupInterrupted } from './interrupted-work.js'

/** A vault whose last good backup is older than this is told so. */
const staleAfterDays = 7

/**
 * How old the last good backup is, whether its bucket copy failed, and whether the most recent
 * attempt failed or was interrupted (a warning until a later backup completes).
 */
export function lastBackupHealth(deps: Pick<BackupDeps, 'database' | 'clock' | 'liveness'>): HealthCheckable {
  const { db } = deps.database
  return {
    async checkHealth() {
      const attempt = await db
        .selectFrom('backups')
        .select(['status', 'error', 'lock_token'])
        .orderBy('started_at', 'desc')
        .limit(1)
        .executeTakeFirst()
      const interrupted =
        attempt?.status === 'failed'
          ? attempt.error === interruptedBackupError
          : attempt?.status === 'running' && (await isBackupInterrupted(deps, attempt))
      const attemptReason = interrupted
        ? 'the last backup was interrupted: its process stopped'
        : attempt?.status === 'failed'
          ? 'the last backup failed'
          : null
      const last = await db
        .selectFrom('backups')
        .selectAll()
        .where('status', '=', 'complete')
        .orderBy('finished_at', 'desc')
        .limit(1)
        .executeTakeFirst()
      const lastAttempt = interrupted ? 'interrupted' : (attempt?.status ?? null)
      if (!last?.finished_at) {
        const reasons = ['no backup has been made yet', ...(attemptReason ? [attemptReason] : [])]
        return {
          status: 'warn',
          reason: reasons.join('; '),
          details: { last_backup_at: null, last_attempt: lastAttempt },
        }
      }
      const ageHours = Math.round(((deps.clock.now().getTime() - Date.parse(last.finished_at)) / 3_600_000) * 10) / 10
      const details = {
        last_backup_at: last.finished_at,
        last_backup_age_hours: ageHours,
        last_backup_copy: last.s3_status,
        last_attempt: lastAttempt,
      }
      const reasons = [
        ...(attemptReason ? [attemptReason] : []),
        ...(last.s3_status === 'failed' ? ['the last backup could not be copied to the backup bucket'] : []),
        ...(ageHours > staleAfterDays * 24 ? [`the last good backup is ${Math.floor(ageHours / 24)} days old`] : []),
      ]
      if (reasons.length > 0) return { status: 'warn', reason: reasons.join('; '), details }
      return { status: 'pass', details }
    },
  }
}
