import type { Kysely } from 'kysely'

/**
 * The background analysis queue (see core/analysis): one row per stored content whose thumbnail
 * or preview is still to be rendered, claimed under a lease so a crashed process's work is taken
 * up again and two replicas never render the same content at once. Finished rows stay an hour
 * for the rate the queue reports. `models.analysing_files` counts a model's files still waiting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analysis_jobs')
    .addColumn('sha256', 'text', (column) => column.primaryKey())
    .addColumn('format', 'text', (column) => column.notNull())
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('reason', 'text')
    .addColumn('queued_at', 'text', (column) => column.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema.createIndex('analysis_jobs_by_state').on('analysis_jobs').columns(['state', 'queued_at']).execute()
  await db.schema.createIndex('analysis_jobs_by_finish').on('analysis_jobs').columns(['state', 'finished_at']).execute()
  await db.schema
    .alterTable('models')
    .addColumn('analysing_files', 'integer', (column) => column.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('models').dropColumn('analysing_files').execute()
  await db.schema.dropTable('analysis_jobs').execute()
}
