import { type Kysely, PostgresAdapter, sql } from 'kysely'
import { postgresTriggers as countTriggers, firstOfFormat, firstOfSlicer, sqliteAdd } from './0013-library-counts.js'
import { postgresLists, sqliteLists } from './0014-model-lists.js'

/**
 * Models shaped the way makers keep them:
 *
 * - `files.folder`: where a file sits inside its model (`stls/supported`, '' for the top), as
 *   the folder or zip it came from had it; shown as a tree and exported as it was.
 * - `models.creator`, `source_url` and `license`: who made it, where it came from, under what terms.
 * - One stored content may be a file of several models (a remix keeps the original's mesh as
 *   its own part): the unique index by content alone for parts (0011) becomes one by model and
 *   content for every file, as it already was for images and documents. A plain index on
 *   `sha256` keeps "is this content held anywhere" an index lookup.
 * - `library_counts` kind `shared`: the bytes of part files whose content another part file holds
 *   (each content beyond its first file), so the library's `bytes_stored` still counts every
 *   stored content once. On PostgreSQL a writer first locks the contents concerned (as 0013 does
 *   for images and documents), so the second of two writers sees the first's rows.
 * - A file may move to another model (moving files, merging and splitting models keep each file's
 *   id, so links, dispatch records and sliced sources follow it). The counters of 0013 and the
 *   lists of 0014 learn the move; format, size and content still never change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    await sql`lock table models, files in share mode`.execute(db)
    return reshape(db, postgresTriggers)
  }
  // SQLite migrations run outside a transaction; the columns, indexes and triggers land together.
  await db.transaction().execute((trx) => reshape(trx, sqliteTriggers))
}

async function reshape(db: Kysely<unknown>, triggers: readonly string[]): Promise<void> {
  await db.schema
    .alterTable('files')
    .addColumn('folder', 'text', (col) => col.notNull().defaultTo(''))
    .execute()
  for (const column of ['creator', 'source_url', 'license'])
    await db.schema.alterTable('models').addColumn(column, 'text').execute()
  await db.schema.dropIndex('files_part_sha256').execute()
  await db.schema.dropIndex('files_media_sha256').execute()
  await db.schema.createIndex('files_model_sha256').on('files').columns(['model_id', 'sha256']).unique().execute()
  await db.schema.createIndex('files_sha256').on('files').column('sha256').execute()
  await sql
    .raw(`insert into library_counts (kind, key, models, files, bytes)
      select 'shared', '', 0, 0, coalesce(sum(size * (held - 1)), 0)
      from (select sha256, max(size) as size, count(*) as held from files where format not in ${media} group by sha256) parts`)
    .execute(db)
  for (const statement of triggers) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  for (const statement of postgres ? postgresUndo : sqliteUndo) await sql.raw(statement).execute(db)
  await db.schema.dropIndex('files_sha256').execute()
  await db.schema.dropIndex('files_model_sha256').execute()
  const media = [sql.lit('image'), sql.lit('document')]
  await db.schema
    .createIndex('files_part_sha256')
    .on('files')
    .column('sha256')
    .unique()
    .where(sql.ref('format'), 'not in', media)
    .execute()
  await db.schema
    .createIndex('files_media_sha256')
    .on('files')
    .columns(['model_id', 'sha256'])
    .unique()
    .where(sql.ref('format'), 'in', media)
    .execute()
  for (const column of ['creator', 'source_url', 'license'])
    await db.schema.alterTable('models').dropColumn(column).execute()
  await db.schema.alterTable('files').dropColumn('folder').execute()
}

/** Every PostgreSQL function this migration creates: a restore drops them with the tables (see `vaultFunctions`). */
export const modelShapeFunctions = [
  'library_counts_files_moved',
  'library_counts_files_shared',
  'model_lists_files_moved',
] as const

const media = `('image', 'document')`
/** Another part file holds the content of `row` (a row trigger's `new` or `old`). */
const sharedPart = (row: 'new' | 'old') =>
  `${row}.format not in ${media} and exists (select 1 from files f where f.sha256 = ${row}.sha256 and f.format not in ${media} and f.id <> ${row}.id)`

const fixedColumns = (row: string) => `${row}.format, ${row}.size, ${row}.sha256`
const refusal = `'a file''s format, size and content never change (library_counts rely on it)'`

// SQLite fires a row trigger right after its row changes: "no other file of the old model has this
// format" sees the moved row already in its new model, as a delete trigger would (0013).
const sqliteTriggers = [
  'drop trigger library_counts_files_fixed',
  `create trigger library_counts_files_fixed before update of format, size, sha256 on files
    when old.format is not new.format or old.size is not new.size or old.sha256 is not new.sha256
    begin select raise(abort, ${refusal}); end`,
  `create trigger library_counts_files_moved after update of model_id on files when old.model_id is not new.model_id begin
    ${sqliteAdd(`'format'`, 'old.format', `-(${firstOfFormat('old')})`, '0', '0')}
    ${sqliteAdd(`'format'`, 'new.format', firstOfFormat('new'), '0', '0')}
    ${sqliteAdd(`'slicer'`, 'old.slicer', `-(${firstOfSlicer('old')})`, '0', '0', 'old.slicer is not null')}
    ${sqliteAdd(`'slicer'`, 'new.slicer', firstOfSlicer('new'), '0', '0', 'new.slicer is not null')} end`,
  `create trigger library_counts_files_shared_insert after insert on files when ${sharedPart('new')} begin
    ${sqliteAdd(`'shared'`, `''`, '0', '0', 'new.size')} end`,
  `create trigger library_counts_files_shared_delete after delete on files when ${sharedPart('old')} begin
    ${sqliteAdd(`'shared'`, `''`, '0', '0', '-old.size')} end`,
  `create trigger model_lists_files_moved after update of model_id on files when old.model_id is not new.model_id begin
    update models set file_formats = ${sqliteLists.fileFormats('models.id')} where id in (old.model_id, new.model_id); end`,
]

const sqliteUndo = [
  'drop trigger model_lists_files_moved',
  'drop trigger library_counts_files_shared_insert',
  'drop trigger library_counts_files_shared_delete',
  'drop trigger library_counts_files_moved',
  'drop trigger library_counts_files_fixed',
  `create trigger library_counts_files_fixed before update of format, size, sha256, model_id on files
    when old.format is not new.format or old.size is not new.size or old.sha256 is not new.sha256 or old.model_id is not new.model_id
    begin select raise(abort, 'a file''s format, size, content and model never change (library_counts rely on it)'); end`,
]

/** The "models with a format/slicer" deltas of files moved between models (`moved`: id, old_model, new_model, format, slicer). */
const postgresMoveDeltas = (key: 'format' | 'slicer') => `
      select '${key}', c.${key}, -count(*), 0, 0 from (select distinct old_model, ${key} from moved where ${key} is not null) c
        where not exists (select 1 from files f where f.model_id = c.old_model and f.${key} = c.${key})
        group by c.${key}
      union all
      select '${key}', c.${key}, count(*), 0, 0 from (select distinct new_model, ${key} from moved where ${key} is not null) c
        where not exists (select 1 from files f where f.model_id = c.new_model and f.${key} = c.${key}
          and not exists (select 1 from moved m where m.id = f.id))
        group by c.${key}`

// 0013's function refused a change of model; now it refuses one only beside a change of slicer on
// the same row (its slicer deltas assume an unmoved file), and `library_counts_files_moved` counts moves.
const countsUpdated = (
  countTriggers.find((statement) => statement.includes('function library_counts_files_updated()')) ?? ''
)
  .replace(
    '(o.format, o.size, o.sha256, o.model_id) is distinct from (n.format, n.size, n.sha256, n.model_id)',
    `(${fixedColumns('o')}) is distinct from (${fixedColumns('n')}) or (o.model_id <> n.model_id and o.slicer is distinct from n.slicer)`,
  )
  .replace(`'a file''s format, size, content and model never change (library_counts rely on it)'`, refusal)

/** The models that files left or joined in this statement, as a select of ids. */
const movedModels = `select o.model_id from before_update o join after_update n using (id) where o.model_id <> n.model_id
      union select n.model_id from before_update o join after_update n using (id) where o.model_id <> n.model_id`

const postgresTriggers = [
  countsUpdated,
  `create or replace function library_counts_files_moved() returns trigger language plpgsql as $$
  begin
    perform 1 from models where id in (${movedModels}) order by id for no key update;
    with moved as (
      select n.id, o.model_id as old_model, n.model_id as new_model, n.format, n.slicer
      from before_update o join after_update n using (id) where o.model_id <> n.model_id)
    insert into library_count_deltas (kind, key, models, files, bytes)
      ${postgresMoveDeltas('format')}
      union all
      ${postgresMoveDeltas('slicer')};
    return null;
  end $$`,
  `create trigger library_counts_files_moved after update on files
    referencing old table as before_update new table as after_update for each statement execute function library_counts_files_moved()`,
  // Per content: each part file beyond the first counts; `held` is the count after the statement.
  `create or replace function library_counts_files_shared() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' then
      perform pg_advisory_xact_lock(hashtextextended(sha256, 18))
        from (select distinct sha256 from added where format not in ${media} order by sha256) parts;
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'shared', '', 0, 0, sum(c.size * (greatest(c.held - 1, 0) - greatest(c.held - c.n - 1, 0)))
        from (select a.sha256, max(a.size) as size, count(*) as n,
            (select count(*) from files f where f.sha256 = a.sha256 and f.format not in ${media}) as held
          from added a where a.format not in ${media} group by a.sha256) c
        having coalesce(sum(c.size * (greatest(c.held - 1, 0) - greatest(c.held - c.n - 1, 0))), 0) <> 0;
    else
      perform pg_advisory_xact_lock(hashtextextended(sha256, 18))
        from (select distinct sha256 from removed where format not in ${media} order by sha256) parts;
      insert into library_count_deltas (kind, key, models, files, bytes)
        select 'shared', '', 0, 0, sum(c.size * (greatest(c.held - 1, 0) - greatest(c.held + c.n - 1, 0)))
        from (select r.sha256, max(r.size) as size, count(*) as n,
            (select count(*) from files f where f.sha256 = r.sha256 and f.format not in ${media}) as held
          from removed r where r.format not in ${media} group by r.sha256) c
        having coalesce(sum(c.size * (greatest(c.held - 1, 0) - greatest(c.held + c.n - 1, 0))), 0) <> 0;
    end if;
    return null;
  end $$`,
  `create trigger library_counts_files_shared_insert after insert on files
    referencing new table as added for each statement execute function library_counts_files_shared()`,
  `create trigger library_counts_files_shared_delete after delete on files
    referencing old table as removed for each statement execute function library_counts_files_shared()`,
  `create or replace function model_lists_files_moved() returns trigger language plpgsql as $$
  declare changed text[];
  begin
    changed := array(select distinct model_id from (${movedModels}) m);
    if cardinality(changed) = 0 then return null; end if;
    perform 1 from models where id = any(changed) order by id for no key update;
    update models set file_formats = ${postgresLists.fileFormats('models.id')} where id = any(changed);
    return null;
  end $$`,
  `create trigger model_lists_files_update after update on files
    referencing old table as before_update new table as after_update for each statement execute function model_lists_files_moved()`,
]

// 0013's own function again: it refuses a change of model.
const postgresUndo = [
  ...modelShapeFunctions.map((name) => `drop function ${name}() cascade`),
  ...countTriggers.filter((statement) => statement.includes('function library_counts_files_updated()')),
]
