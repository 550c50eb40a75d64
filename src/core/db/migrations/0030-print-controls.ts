import type { Kysely } from 'kysely'

/**
 * The controls of a running print (see core/farm/print-controls.ts): `print_jobs.paused_at` is when
 * a person paused the job's print from the vault, null while it prints on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('print_jobs').addColumn('paused_at', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('print_jobs').dropColumn('paused_at').execute()
}
