import { type Kysely, PostgresAdapter, sql } from 'kysely'

/**
 * Library totals kept on write, so `GET /models/stats` reads a few small rows instead of
 * passing over every file (issue 18). The database keeps them with triggers, not the
 * application: every writer counts, whatever code path or process it is (ingest, deletes and
 * their cascades, folder import, another replica), and a restored database brings the counters
 * of its own rows. `library_counts` holds one row per (kind, key):
 *
 * - `models`/``: models; `format`/<format>: files, bytes, and models with at least one such file;
 * - `slicer`/<slicer>: G-code files and models; `media`/``: bytes of distinct images and documents
 *   (one blob may sit on several models; `bytes_stored` counts it once);
 * - `tag`/<tag id> and `collection`/<collection id>: models.
 *
 * SQLite runs one writer at a time, so its triggers add to those rows directly. PostgreSQL runs
 * writers side by side: adding to a shared row would queue every upload behind it and let two
 * transactions that touch the same rows in different orders deadlock, so its triggers append
 * to `library_count_deltas` instead and the current value is the row plus its deltas. Every
 * 1,024th delta folds the deltas into `library_counts`, one transaction at a time (an advisory
 * lock), so reads sum at most a few thousand rows. "Models with a format/slicer" and "distinct
 * media bytes" depend on rows other writers may be adding at the same moment: the PostgreSQL
 * triggers first lock the models (or the blob's hash) concerned, then look with a fresh
 * snapshot, so the second of two writers sees the first's committed rows.
 *
 * A file's format, size, content and model never change after insert (the counts rely on it:
 * a trigger refuses such an update). A later migration that rebuilds `files` on SQLite must
 * recreate these triggers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    // Writers that began before wait, later ones wait for this migration: none goes uncounted.
    await sql`lock table models, files, model_tags, collection_models in share mode`.execute(db)
    return createCounts(db, postgresTriggers)
  }
  // SQLite migrations run outside a transaction; the backfill and the triggers must land together.
  // A transaction through Kysely (not a literal `begin`): on D1 the driver has no interactive
  // transactions and runs the statements one by one, as it does for every transaction there.
  await db.transaction().execute((trx) => createCounts(trx, sqliteTriggers))
}

async function createCounts(db: Kysely<unknown>, triggers: readonly string[]): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  await db.schema
    .createTable('library_counts')
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('models', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('files', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('library_counts_pk', ['kind', 'key'])
    .execute()
  await db.schema
    .createTable('library_count_deltas')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('models', 'bigint', (col) => col.notNull())
    .addColumn('files', 'bigint', (col) => col.notNull())
    .addColumn('bytes', 'bigint', (col) => col.notNull())
    .execute()
  // The media check asks "does another image or document have these bytes?"
  await db.schema
    .createIndex('files_media_by_sha256')
    .on('files')
    .column('sha256')
    .where(sql.ref('format'), 'in', [sql.lit('image'), sql.lit('document')])
    .execute()
  await backfill(db)
  for (const statement of triggers) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    for (const name of libraryCountFunctions) await sql.raw(`drop function ${name}() cascade`).execute(db)
  } else {
    for (const statement of sqliteTriggers) {
      const name = /create trigger (\w+)/.exec(statement)?.[1]
      if (name) await sql.raw(`drop trigger ${name}`).execute(db)
    }
  }
  await db.schema.dropIndex('files_media_by_sha256').execute()
  await db.schema.dropTable('library_count_deltas').execute()
  await db.schema.dropTable('library_counts').execute()
}

/** Every PostgreSQL function this migration creates: a restore drops them with the tables (see `vaultFunctions`). */
export const libraryCountFunctions = [
  'library_counts_fold',
  'library_counts_deltas_added',
  'library_counts_models_changed',
  'library_counts_files_added',
  'library_counts_files_removed',
  'library_counts_files_updated',
  'library_counts_links_changed',
] as const

const media = `('image', 'document')`

/** One statement per kind: D1 allows few terms in a compound select, so no `union all` of them. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const counts = [
    `select 'models', '', count(*), 0, 0 from models`,
    `select 'format', format, count(distinct model_id), count(*), sum(size) from files group by format`,
    `select 'slicer', slicer, count(distinct model_id), count(*), 0 from files where slicer is not null group by slicer`,
    `select 'media', '', 0, 0, coalesce(sum(size), 0) from (select distinct sha256, size from files where format in ${media}) blobs`,
    `select 'tag', tag_id, count(*), 0, 0 from model_tags group by tag_id`,
    `select 'collection', collection_id, count(*), 0, 0 from collection_models group by collection_id`,
  ]
  for (const count of counts)
    await sql.raw(`insert into library_counts (kind, key, models, files, bytes) ${count}`).execute(db)
}

/** An upsert adding to one counter row, for SQLite's row triggers; `where` makes it conditional. */
export function sqliteAdd(
  kind: string,
  key: string,
  models: string,
  files: string,
  bytes: string,
  where = 'true',
): string {
  return `insert into library_counts (kind, key, models, files, bytes)
    select ${kind}, ${key}, ${models}, ${files}, ${bytes} where ${where}
    on conflict (kind, key) do update set models = library_counts.models + excluded.models,
      files = library_counts.files + excluded.files, bytes = library_counts.bytes + excluded.bytes;`
}

// SQLite fires a row trigger right after its row changes (before the statement's next row), so
// "no other file of this model has this format" is exact even in a multi-row statement.
export const firstOfFormat = (row: 'new' | 'old') =>
  `not exists (select 1 from files f where f.model_id = ${row}.model_id and f.format = ${row}.format and f.id <> ${row}.id)`
export const firstOfSlicer = (row: 'new' | 'old') =>
  `not exists (select 1 from files f where f.model_id = ${row}.model_id and f.slicer = ${row}.slicer and f.id <> ${row}.id)`
const firstOfBlob = (row: 'new' | 'old') =>
  `${row}.format in ${media} and not exists (select 1 from files f where f.sha256 = ${row}.sha256 and f.format in ${media} and f.id <> ${row}.id)`

const sqliteTriggers = [
  `create trigger library_counts_models_insert after insert on models begin
    ${sqliteAdd(`'models'`, `''`, '1', '0', '0')} end`,
  `create trigger library_counts_models_delete after delete on models begin
    ${sqliteAdd(`'models'`, `''`, '-1', '0', '0')} end`,
  `create trigger library_counts_files_insert after insert on files begin
    ${sqliteAdd(`'format'`, 'new.format', firstOfFormat('new'), '1', 'new.size')}
    ${sqliteAdd(`'slicer'`, 'new.slicer', firstOfSlicer('new'), '1', '0', 'new.slicer is not null')}
    ${sqliteAdd(`'media'`, `''`, '0', '0', 'new.size', firstOfBlob('new'))} end`,
  `create trigger library_counts_files_delete after delete on files begin
    ${sqliteAdd(`'format'`, 'old.format', `-(${firstOfFormat('old')})`, '-1', '-old.size')}
    ${sqliteAdd(`'slicer'`, 'old.slicer', `-(${firstOfSlicer('old')})`, '-1', '0', 'old.slicer is not null')}
    ${sqliteAdd(`'media'`, `''`, '0', '0', '-old.size', firstOfBlob('old'))} end`,
  `create trigger library_counts_files_slicer after update of slicer on files when old.slicer is not new.slicer begin
    ${sqliteAdd(`'slicer'`, 'old.slicer', `-(${firstOfSlicer('old')})`, '-1', '0', 'old.slicer is not null')}
    ${sqliteAdd(`'slicer'`, 'new.slicer', firstOfSlicer('new'), '1', '0', 'new.slicer is not null')} end`,
  `create trigger library_counts_files_fixed before update of format, size, sha256, model_id on files
    when old.format is not new.format or old.size is not new.size or old.sha256 is not new.sha256 or old.model_id is not new.model_id
    begin select raise(abort, 'a file''s format, size, content and model never change (library_counts rely on it)'); end`,
  `create trigger library_counts_tags_insert after insert on model_tags begin
    ${sqliteAdd(`'tag'`, 'new.tag_id', '1', '0', '0')} end`,
  `create trigger library_counts_tags_delete after delete on model_tags begin
    ${sqliteAdd(`'tag'`, 'old.tag_id', '-1', '0', '0')} end`,
  `create trigger library_counts_collections_insert after insert on collection_models begin
    ${sqliteAdd(`'collection'`, 'new.collection_id', '1', '0', '0')} end`,
  `create trigger library_counts_collections_delete after delete on collection_models begin
    ${sqliteAdd(`'collection'`, 'old.collection_id', '-1', '0', '0')} end`,
]

// Statement-level triggers with transition tables: one pass per statement, whatever its row count.
// `changed` is the statement's rows (new ones on insert, old ones on delete); `sign` is +1 or -1.
const postgresFileDeltas = (changed: string, sign: string) => `
    insert into library_count_deltas (kind, key, models, files, bytes)
    select 'format', format, 0, ${sign} * count(*), ${sign} * sum(size) from ${changed} group by format
    union all
    select 'format', c.format, ${sign} * count(*), 0, 0 from (select distinct model_id, format from ${changed}) c
      where not exists (select 1 from files f where f.model_id = c.model_id and f.format = c.format
        and not exists (select 1 from ${changed} x where x.id = f.id))
      group by c.format
    union all
    select 'slicer', slicer, 0, ${sign} * count(*), 0 from ${changed} where slicer is not null group by slicer
    union all
    select 'slicer', c.slicer, ${sign} * count(*), 0, 0 from (select distinct model_id, slicer from ${changed} where slicer is not null) c
      where not exists (select 1 from files f where f.model_id = c.model_id and f.slicer = c.slicer
        and not exists (select 1 from ${changed} x where x.id = f.id))
      group by c.slicer
    union all
    select 'media', '', 0, 0, ${sign} * sum(c.size) from (select distinct sha256, size from ${changed} where format in ${media}) c
      where not exists (select 1 from files f where f.sha256 = c.sha256 and f.format in ${media}
        and not exists (select 1 from ${changed} x where x.id = f.id))
      having count(*) > 0;`

// Two writers adding (or removing) the first file of a format to the same model, or the same
// image to two models, must not both count it: each waits for the other's commit here, and
// the next statement's snapshot sees the committed rows. A model this transaction deleted is
// invisible, so a cascade locks nothing more.
const postgresLockFileOwners = (changed: string) => `
    perform 1 from models where id in (select model_id from ${changed}) order by id for no key update;
    perform pg_advisory_xact_lock(hashtextextended(sha256, 18))
      from (select distinct sha256 from ${changed} where format in ${media} order by sha256) blobs;`

/** A statement-level trigger on inserts (rows `added`) or deletes (rows `removed`) of `table`. */
const postgresStatementTrigger = (table: string, rows: 'added' | 'removed', fn: string) =>
  rows === 'added'
    ? `create trigger library_counts_${table}_insert after insert on ${table}
      referencing new table as added for each statement execute function ${fn}()`
    : `create trigger library_counts_${table}_delete after delete on ${table}
      referencing old table as removed for each statement execute function ${fn}()`

export const postgresTriggers = [
  // Folds every delta visible now into library_counts. The deltas are deleted and summed in one
  // statement (one snapshot), so a delta another transaction commits meanwhile stays for later.
  `create or replace function library_counts_fold() returns void language plpgsql as $$
  begin
    if not pg_try_advisory_xact_lock(hashtextextended('model-vault library_counts', 18)) then return; end if;
    with folded as (delete from library_count_deltas returning kind, key, models, files, bytes)
    insert into library_counts (kind, key, models, files, bytes)
      select kind, key, sum(models), sum(files), sum(bytes) from folded group by kind, key order by kind, key
      on conflict (kind, key) do update set models = library_counts.models + excluded.models,
        files = library_counts.files + excluded.files, bytes = library_counts.bytes + excluded.bytes;
    delete from library_counts where models = 0 and files = 0 and bytes = 0;
  end $$`,
  `create or replace function library_counts_deltas_added() returns trigger language plpgsql as $$
  begin
    if exists (select 1 from added where id % 1024 = 0) then perform library_counts_fold(); end if;
    return null;
  end $$`,
  `create trigger library_counts_fold after insert on library_count_deltas
    referencing new table as added for each statement execute function library_counts_deltas_added()`,
  `create or replace function library_counts_models_changed() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'models', '', count(*), 0, 0 from added having count(*) > 0;
    else
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'models', '', -count(*), 0, 0 from removed having count(*) > 0;
    end if;
    return null;
  end $$`,
  postgresStatementTrigger('models', 'added', 'library_counts_models_changed'),
  postgresStatementTrigger('models', 'removed', 'library_counts_models_changed'),
  ...(['added', 'removed'] as const).flatMap((rows) => [
    `create or replace function library_counts_files_${rows}() returns trigger language plpgsql as $$
    begin
      ${postgresLockFileOwners(rows)}
      ${postgresFileDeltas(rows, rows === 'added' ? '1' : '-1')}
      return null;
    end $$`,
    postgresStatementTrigger('files', rows, `library_counts_files_${rows}`),
  ]),
  // Only the slicer of a file changes after insert (refreshModel copies it out of the metadata).
  `create or replace function library_counts_files_updated() returns trigger language plpgsql as $$
  begin
    if exists (select 1 from before_update o join after_update n using (id)
      where (o.format, o.size, o.sha256, o.model_id) is distinct from (n.format, n.size, n.sha256, n.model_id)) then
      raise exception 'a file''s format, size, content and model never change (library_counts rely on it)';
    end if;
    perform 1 from models where id in (select o.model_id from before_update o join after_update n using (id)
      where o.slicer is distinct from n.slicer) order by id for no key update;
    with moves as (
      select o.id, o.model_id, o.slicer as old_slicer, n.slicer as new_slicer
      from before_update o join after_update n using (id) where o.slicer is distinct from n.slicer)
    insert into library_count_deltas (kind, key, models, files, bytes)
      select 'slicer', old_slicer, 0, -count(*), 0 from moves where old_slicer is not null group by old_slicer
      union all
      select 'slicer', new_slicer, 0, count(*), 0 from moves where new_slicer is not null group by new_slicer
      union all
      select 'slicer', c.old_slicer, -count(*), 0, 0 from (select distinct model_id, old_slicer from moves where old_slicer is not null) c
        where not exists (select 1 from files f where f.model_id = c.model_id and f.slicer = c.old_slicer)
        group by c.old_slicer
      union all
      select 'slicer', c.new_slicer, count(*), 0, 0 from (select distinct model_id, new_slicer from moves where new_slicer is not null) c
        where not exists (select 1 from files f where f.model_id = c.model_id and f.slicer = c.new_slicer
          and not exists (select 1 from moves m where m.id = f.id))
        group by c.new_slicer;
    return null;
  end $$`,
  `create trigger library_counts_files_update after update on files
    referencing old table as before_update new table as after_update for each statement execute function library_counts_files_updated()`,
  `create or replace function library_counts_links_changed() returns trigger language plpgsql as $$
  begin
    if tg_table_name = 'model_tags' and tg_op = 'INSERT' then
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'tag', tag_id, count(*), 0, 0 from added group by tag_id;
    elsif tg_table_name = 'model_tags' then
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'tag', tag_id, -count(*), 0, 0 from removed group by tag_id;
    elsif tg_op = 'INSERT' then
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'collection', collection_id, count(*), 0, 0 from added group by collection_id;
    else
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'collection', collection_id, -count(*), 0, 0 from removed group by collection_id;
    end if;
    return null;
  end $$`,
  ...['model_tags', 'collection_models'].flatMap((table) =>
    (['added', 'removed'] as const).map((rows) =>
      postgresStatementTrigger(table, rows, 'library_counts_links_changed'),
    ),
  ),
]
