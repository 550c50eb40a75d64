import type { Kysely } from 'kysely'

/**
 * Bed clearing by script (see core/farm/bed-clearing.ts). A printer clears its bed by a person
 * (`bed_clear_by = 'person'`, as before) or by a G-code script or macro the vault runs
 * (`'script'`) once the bed has cooled below `bed_clear_below_c`, giving the printer
 * `bed_clear_timeout_s` to finish it. `bed_clearings` holds each run: its phase (`cooling`,
 * `running`, `ran`, then `cleared`, `failed` or `superseded`), the bed temperature last seen, and
 * the lease of the process running the script, so a restart or a second replica never runs one
 * twice. A run that ended is the record of who cleared the bed: the script.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('printers')
    .addColumn('bed_clear_by', 'text', (column) => column.notNull().defaultTo('person'))
    .execute()
  await db.schema.alterTable('printers').addColumn('bed_clear_script', 'text').execute()
  await db.schema.alterTable('printers').addColumn('bed_clear_below_c', 'double precision').execute()
  await db.schema.alterTable('printers').addColumn('bed_clear_timeout_s', 'integer').execute()
  await db.schema
    .createTable('bed_clearings')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('printer_id', 'text', (column) => column.notNull().references('printers.id').onDelete('cascade'))
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('script', 'text', (column) => column.notNull())
    .addColumn('below_c', 'double precision', (column) => column.notNull())
    .addColumn('timeout_s', 'integer', (column) => column.notNull())
    .addColumn('bed_c', 'double precision')
    .addColumn('detail', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('deadline_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('ended_at', 'text')
    .execute()
  await db.schema
    .createIndex('bed_clearings_by_printer')
    .on('bed_clearings')
    .columns(['printer_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bed_clearings').execute()
  for (const column of ['bed_clear_timeout_s', 'bed_clear_below_c', 'bed_clear_script', 'bed_clear_by'])
    await db.schema.alterTable('printers').dropColumn(column).execute()
}
