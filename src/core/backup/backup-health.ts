import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { HealthCheckable } from '../health/component.js'
import type { Clock } from '../runtime/clock.js'

/** A vault whose last good backup is older than this is told so. */
const staleAfterDays = 7

/** How old the last good backup is, and whether its bucket copy failed. */
export function lastBackupHealth(db: Kysely<Database>, clock: Clock): HealthCheckable {
  return {
    async checkHealth() {
      const last = await db
        .selectFrom('backups')
        .selectAll()
        .where('status', '=', 'complete')
        .orderBy('finished_at', 'desc')
        .limit(1)
        .executeTakeFirst()
      if (!last?.finished_at)
        return { status: 'warn', reason: 'no backup has been made yet', details: { last_backup_at: null } }
      const ageHours = Math.round(((clock.now().getTime() - Date.parse(last.finished_at)) / 3_600_000) * 10) / 10
      const details = {
        last_backup_at: last.finished_at,
        last_backup_age_hours: ageHours,
        last_backup_copy: last.s3_status,
      }
      if (last.s3_status === 'failed')
        return { status: 'warn', reason: 'the last backup could not be copied to the backup bucket', details }
      if (ageHours > staleAfterDays * 24)
        return { status: 'warn', reason: `the last good backup is ${Math.floor(ageHours / 24)} days old`, details }
      return { status: 'pass', details }
    },
  }
}
