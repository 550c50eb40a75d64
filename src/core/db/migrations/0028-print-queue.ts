import type { Kysely } from 'kysely'

/**
 * The print queue (see core/farm): one row per job, a set of print-ready files of a model printed
 * a number of times on a printer, a group of printers or any compatible one, in the order of its
 * priority and then its position. A job being sent is held under a lease, and so is a printer being
 * fed, so two replicas never send one job twice and a stopped process's job is taken up again.
 * Printers gain their group tags, the filament types loaded in them, a hold (a job failed on them; a person releases it) and that lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('print_jobs')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('model_id', 'text', (column) => column.notNull().references('models.id').onDelete('cascade'))
    .addColumn('file_ids', 'text', (column) => column.notNull())
    .addColumn('copies', 'integer', (column) => column.notNull())
    .addColumn('copies_done', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_file', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('target_kind', 'text', (column) => column.notNull())
    .addColumn('target_printer_id', 'text')
    .addColumn('target_group', 'text')
    .addColumn('priority', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('position', 'double precision', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (column) => column.notNull())
    .addColumn('wait_reason', 'text')
    .addColumn('last_error', 'text')
    .addColumn('accept_warnings', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('printer_id', 'text', (column) => column.references('printers.id').onDelete('set null'))
    .addColumn('dispatch_id', 'text')
    .addColumn('remote_name', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_by', 'text', (column) => column.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema
    .createIndex('print_jobs_in_order')
    .on('print_jobs')
    .columns(['state', 'priority', 'position'])
    .execute()
  await db.schema.createIndex('print_jobs_on_printer').on('print_jobs').columns(['printer_id', 'state']).execute()
  await db.schema
    .alterTable('printers')
    .addColumn('farm_groups', 'text', (column) => column.notNull().defaultTo('[]'))
    .execute()
  await db.schema
    .alterTable('printers')
    .addColumn('loaded_filaments', 'text', (column) => column.notNull().defaultTo('[]'))
    .execute()
  await db.schema.alterTable('printers').addColumn('held_reason', 'text').execute()
  await db.schema.alterTable('printers').addColumn('held_since', 'text').execute()
  await db.schema.alterTable('printers').addColumn('lease_owner', 'text').execute()
  await db.schema.alterTable('printers').addColumn('lease_until', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['lease_until', 'lease_owner', 'held_since', 'held_reason', 'loaded_filaments', 'farm_groups'])
    await db.schema.alterTable('printers').dropColumn(column).execute()
  await db.schema.dropTable('print_jobs').execute()
}
