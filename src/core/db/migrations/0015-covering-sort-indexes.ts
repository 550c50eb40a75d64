import { type Kysely, PostgresAdapter, sql } from 'kysely'

/**
 * Sort indexes that carry the filters kept on the model's own row (issue 18). A page of a
 * filtered list walks the sort key's index and tests each model until the page is full; when
 * the filter is rare near the start of the order (models without G-code, largest first; one
 * month of creation, last updated first) that walk passes thousands of models, and each one
 * cost a read of the model's row (and for G-code a lookup in the files index). Each sort index
 * now ends with the creation and update dates and the model's G-code file count (a new column,
 * kept by `refreshModel` beside `file_count`), so the walk tests them in the index itself: on
 * SQLite without reading rows (the row is read only for a model that passes), on PostgreSQL as
 * an index-only scan of ids (src/core/library/model-query.ts reads the page's ids first).
 *
 * Same index names as migration 0004, same leading columns: every plan that used them still
 * does. Each index grows by about 50 bytes per model (two dates and an integer).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  // SQLite migrations run outside a transaction: the column, its backfill and the indexes land together.
  if (postgres) await replaceSortIndexes(db, postgres)
  else await db.transaction().execute((trx) => replaceSortIndexes(trx, postgres))
}

const sortIndexes = ['models_by_name', 'models_by_created', 'models_by_updated', 'models_by_size'] as const

async function replaceSortIndexes(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  // Dropped first so the backfill does not update them row by row; built once after it.
  for (const index of sortIndexes) await db.schema.dropIndex(index).execute()
  await db.schema
    .alterTable('models')
    .addColumn('gcode_file_count', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  await sql`update models set gcode_file_count = (select count(*) from files where files.model_id = models.id and files.format = 'gcode')
    where exists (select 1 from files where files.model_id = models.id and files.format = 'gcode')`.execute(db)
  // The name key must stay the expression `SqlDialect.nameSortKey` sorts by (as in 0004).
  const nameKey = postgres ? sql`lower(name collate "C")` : sql`lower(name)`
  const filtered = sql`created_at, updated_at, gcode_file_count`
  await sql`create index models_by_name on models (${nameKey}, id, ${filtered})`.execute(db)
  await sql`create index models_by_created on models (created_at, id, updated_at, gcode_file_count)`.execute(db)
  await sql`create index models_by_updated on models (updated_at, id, created_at, gcode_file_count)`.execute(db)
  await sql`create index models_by_size on models (total_size, id, ${filtered})`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const index of sortIndexes) await db.schema.dropIndex(index).execute()
  await db.schema.alterTable('models').dropColumn('gcode_file_count').execute()
  const nameKey = postgres ? sql`lower(name collate "C")` : sql`lower(name)`
  await sql`create index models_by_name on models (${nameKey}, id)`.execute(db)
  await db.schema.createIndex('models_by_created').on('models').columns(['created_at', 'id']).execute()
  await db.schema.createIndex('models_by_updated').on('models').columns(['updated_at', 'id']).execute()
  await db.schema.createIndex('models_by_size').on('models').columns(['total_size', 'id']).execute()
}
