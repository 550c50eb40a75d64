import type { Kysely } from 'kysely'

/**
 * Who holds a lock, so a dead holder is told apart from a slow one: the host (with its boot and
 * process namespace) and process id let a process on the same host take over at once when that
 * process is gone; the instance names the service process for people reading the row. A running
 * backup names the lock token it holds, so its record can be failed once that holder is gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('locks').addColumn('host_id', 'text').execute()
  await db.schema.alterTable('locks').addColumn('pid', 'integer').execute()
  await db.schema.alterTable('locks').addColumn('instance_id', 'text').execute()
  await db.schema.alterTable('backups').addColumn('lock_token', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('backups').dropColumn('lock_token').execute()
  await db.schema.alterTable('locks').dropColumn('instance_id').execute()
  await db.schema.alterTable('locks').dropColumn('pid').execute()
  await db.schema.alterTable('locks').dropColumn('host_id').execute()
}
