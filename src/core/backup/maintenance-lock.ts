import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'

/** One backup or restore at a time, across every process sharing the database. */
export const maintenanceLockName = 'backup-restore'

/** Whether a backup or restore holds the maintenance lock right now. */
export async function isMaintenanceRunning(db: Kysely<Database>, now: Date): Promise<boolean> {
  const row = await db.selectFrom('locks').select('name').where('name', '=', maintenanceLockName).where('expires_at', '>', now.toISOString()).executeTakeFirst()
  return row !== undefined
}
