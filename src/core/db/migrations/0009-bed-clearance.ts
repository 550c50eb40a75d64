import type { Kysely } from 'kysely'

/**
 * A printer can ask for the bed to be confirmed clear after each job (`require_bed_clear`, off by
 * default); `bed_occupied_since` is when the vault last saw a job on it that nobody has yet
 * confirmed cleared away.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('printers')
    .addColumn('require_bed_clear', 'integer', (column) => column.notNull().defaultTo(0))
    .execute()
  await db.schema.alterTable('printers').addColumn('bed_occupied_since', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('printers').dropColumn('bed_occupied_since').execute()
  await db.schema.alterTable('printers').dropColumn('require_bed_clear').execute()
}
