import { type Kysely, PostgresAdapter, sql } from 'kysely'

/**
 * Organising and searching the library: tags, collections, per-model file summaries (so
 * lists sort by size without aggregating), each G-code file's slicer (so stats need not parse
 * metadata JSON), a counter of deduplicated uploads, and a full-text index. The index is the
 * one dialect-specific part: SQLite gets an FTS5 table whose rowids map to models through
 * `model_search_docs`; PostgreSQL a `tsvector` column with a GIN index. Existing models are
 * indexed by the application on first start (`backfillSearchIndex`), not here, so this
 * migration stays frozen while the text builder evolves.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter

  await db.schema
    .alterTable('models')
    .addColumn('file_count', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('models')
    .addColumn('total_size', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute()
  // Null until the search index has seen the model; backfill picks those up.
  await db.schema.alterTable('models').addColumn('indexed_at', 'text').execute()
  await db.schema.alterTable('files').addColumn('slicer', 'text').execute()

  // Keyset paging needs an index per sort key with the id as tie-breaker. Names sort by their
  // ASCII-lower-cased bytes on both databases (PostgreSQL: `lower(... collate "C")`).
  const nameKey = postgres ? sql`lower(name collate "C")` : sql`lower(name)`
  await sql`create index models_by_name on models (${nameKey}, id)`.execute(db)
  await db.schema.createIndex('models_by_created').on('models').columns(['created_at', 'id']).execute()
  await db.schema.createIndex('models_by_updated').on('models').columns(['updated_at', 'id']).execute()
  await db.schema.createIndex('models_by_size').on('models').columns(['total_size', 'id']).execute()
  await db.schema.createIndex('models_unindexed').on('models').column('indexed_at').execute()
  // Covering indexes for the format filter and the stats breakdowns.
  await db.schema.createIndex('files_by_format').on('files').columns(['format', 'model_id', 'size']).execute()
  await db.schema.createIndex('files_by_slicer').on('files').columns(['slicer', 'model_id']).execute()

  await db.schema
    .createTable('tags')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    // Lower-cased name: tags are unique regardless of case; the first spelling is shown.
    .addColumn('name_key', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute()
  await db.schema
    .createTable('model_tags')
    .addColumn('model_id', 'text', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('tag_id', 'text', (col) => col.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('model_tags_pk', ['model_id', 'tag_id'])
    .execute()
  await db.schema.createIndex('model_tags_by_tag').on('model_tags').columns(['tag_id', 'model_id']).execute()

  await db.schema
    .createTable('collections')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('name_key', 'text', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute()
  await db.schema
    .createTable('collection_models')
    .addColumn('collection_id', 'text', (col) => col.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('model_id', 'text', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('added_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('collection_models_pk', ['collection_id', 'model_id'])
    .execute()
  await db.schema
    .createIndex('collection_models_by_model')
    .on('collection_models')
    .columns(['model_id', 'collection_id'])
    .execute()

  await db.schema
    .createTable('dedup_counter')
    .addColumn('singleton', 'integer', (col) => col.primaryKey().defaultTo(1).check(sql`singleton = 1`))
    .addColumn('uploads', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute()
  await sql`insert into dedup_counter (singleton, uploads, bytes) values (1, 0, 0)`.execute(db)

  await sql`update models set file_count = (select count(*) from files where files.model_id = models.id), total_size = coalesce((select sum(size) from files where files.model_id = models.id), 0)`.execute(
    db,
  )

  if (postgres) {
    await sql`create table model_search (model_id text primary key references models(id) on delete cascade, document tsvector not null)`.execute(
      db,
    )
    await sql`create index model_search_document on model_search using gin (document)`.execute(db)
  } else {
    await sql`create virtual table model_search using fts5(body, tokenize = 'unicode61 remove_diacritics 2')`.execute(
      db,
    )
    await sql`create table model_search_docs (doc_id integer primary key, model_id text not null unique references models(id) on delete cascade)`.execute(
      db,
    )
    // Foreign-key cascades fire triggers in SQLite, so deleting a model empties its FTS row too.
    await sql`create trigger model_search_docs_delete after delete on model_search_docs begin delete from model_search where rowid = old.doc_id; end`.execute(
      db,
    )
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (!postgres) {
    await sql`drop trigger model_search_docs_delete`.execute(db)
    await db.schema.dropTable('model_search_docs').execute()
  }
  await db.schema.dropTable('model_search').execute()
  for (const table of ['dedup_counter', 'collection_models', 'collections', 'model_tags', 'tags'])
    await db.schema.dropTable(table).execute()
  for (const index of [
    'models_by_name',
    'models_by_created',
    'models_by_updated',
    'models_by_size',
    'models_unindexed',
    'files_by_format',
    'files_by_slicer',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
  await db.schema.alterTable('files').dropColumn('slicer').execute()
  for (const column of ['indexed_at', 'total_size', 'file_count'])
    await db.schema.alterTable('models').dropColumn(column).execute()
}
