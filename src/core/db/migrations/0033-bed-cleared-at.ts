import type { Kysely } from 'kysely'

/**
 * `bed_cleared_at`: when the printer's bed was last confirmed clear (by a person or its clearing
 * script). A status read asked before it tells of the print that was taken off, not of a new one:
 * a slow poll, or another process's cached status, must not mark the bed used again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('printers').addColumn('bed_cleared_at', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('printers').dropColumn('bed_cleared_at').execute()
}
