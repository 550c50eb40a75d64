import { type Kysely, PostgresAdapter, sql } from 'kysely'

/**
 * Each model's tag names and distinct file formats kept on its own row (issue 18), as the text
 * of JSON arrays exactly as lists show them: `tag_names` ordered by the tags' `name_key`,
 * `file_formats` each format once, ordered. A page of the library then reads its rows and
 * aggregates nothing (before, every model of a page cost an index lookup and a small sort per
 * list).
 *
 * The database keeps them with triggers, as it keeps `library_counts` (0013), rather than the
 * application writing them beside `file_count` in `refreshModel`: a trigger is exact for every
 * writer whatever its code path or process (tag edits, ingest, content release, model deletes
 * and their cascades, tag deletes, an older replica still running during an upgrade, a
 * hand-made repair), and a restored database brings the lists of its own rows (restores run the
 * migrations afterwards, so a backup from before this one is filled here). The cost is small:
 * a file changes a model's list only when it brings the model's first file of its format or
 * takes its last, and the SQLite triggers run only then (`when`); a tag change recomputes that
 * model's tags (at most 50) per link row.
 *
 * On PostgreSQL the triggers are per statement and lock the models concerned before they look
 * (a separate statement, so with a fresh snapshot), as 0013's do: of two writers adding or
 * removing files or tags of one model at once, the second waits and then sees the first's rows.
 * A file's format and model never change after insert (0013 refuses such updates), so no update
 * of `files` is watched. Tags are never renamed by the application; a rename by any other writer
 * still recomputes the lists that show the tag.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    // Writers that began before wait, later ones wait for this migration: no change goes unlisted.
    await sql`lock table models, files, model_tags, tags in share mode`.execute(db)
    return createLists(db, postgresLists, postgresTriggers)
  }
  // SQLite migrations run outside a transaction; the columns, their filling and the triggers land together.
  await db.transaction().execute((trx) => createLists(trx, sqliteLists, sqliteTriggers))
}

async function createLists(db: Kysely<unknown>, lists: Lists, triggers: readonly string[]): Promise<void> {
  await db.schema
    .alterTable('models')
    .addColumn('tag_names', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute()
  await db.schema
    .alterTable('models')
    .addColumn('file_formats', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute()
  // One pass over the models, each list an index lookup (model_tags' primary key, files_model).
  await sql
    .raw(
      `update models set tag_names = ${lists.tagNames('models.id')}, file_formats = ${lists.fileFormats('models.id')}`,
    )
    .execute(db)
  for (const statement of triggers) await sql.raw(statement).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter
  if (postgres) {
    for (const name of modelListFunctions) await sql.raw(`drop function ${name}() cascade`).execute(db)
  } else {
    for (const statement of sqliteTriggers) {
      const name = /create trigger (\w+)/.exec(statement)?.[1]
      if (name) await sql.raw(`drop trigger ${name}`).execute(db)
    }
  }
  await db.schema.alterTable('models').dropColumn('file_formats').execute()
  await db.schema.alterTable('models').dropColumn('tag_names').execute()
}

/** Every PostgreSQL function this migration creates: a restore drops them with the tables (see `vaultFunctions`). */
export const modelListFunctions = ['model_lists_tags_changed', 'model_lists_files_changed'] as const

/** A model's lists as scalar subqueries, `model` naming its id: the same text the backfill and the triggers write. */
interface Lists {
  tagNames(model: string): string
  fileFormats(model: string): string
}

// json_group_array is `[]` over no rows; json_agg is null, hence coalesce; its cast to text keeps the
// driver from parsing it (the core parses: the spacing each database writes does not matter).
// ORDER BY inside an aggregate needs SQLite 3.44 (better-sqlite3 bundles a newer one, and so does workerd's D1).
export const sqliteLists: Lists = {
  tagNames: (model) =>
    `(select json_group_array(t.name order by t.name_key) from model_tags mt join tags t on t.id = mt.tag_id where mt.model_id = ${model})`,
  fileFormats: (model) =>
    `(select json_group_array(distinct f.format order by f.format) from files f where f.model_id = ${model})`,
}
export const postgresLists: Lists = {
  tagNames: (model) =>
    `coalesce((select json_agg(t.name order by t.name_key)::text from model_tags mt join tags t on t.id = mt.tag_id where mt.model_id = ${model}), '[]')`,
  fileFormats: (model) =>
    `coalesce((select json_agg(distinct f.format order by f.format)::text from files f where f.model_id = ${model}), '[]')`,
}

// SQLite fires a row trigger right after its row changes, so "no other file of this model has
// this format" is exact even in a multi-row statement (as in 0013).
const onlyOfFormat = (row: 'new' | 'old') =>
  `not exists (select 1 from files f where f.model_id = ${row}.model_id and f.format = ${row}.format and f.id <> ${row}.id)`
const sqliteSetTags = (where: string) =>
  `update models set tag_names = ${sqliteLists.tagNames('models.id')} where ${where};`
const sqliteSetFormats = (row: 'new' | 'old') =>
  `update models set file_formats = ${sqliteLists.fileFormats('models.id')} where id = ${row}.model_id;`

const sqliteTriggers = [
  `create trigger model_lists_tags_insert after insert on model_tags begin ${sqliteSetTags('id = new.model_id')} end`,
  `create trigger model_lists_tags_delete after delete on model_tags begin ${sqliteSetTags('id = old.model_id')} end`,
  `create trigger model_lists_tags_renamed after update of name, name_key on tags
    when old.name is not new.name or old.name_key is not new.name_key begin
    ${sqliteSetTags('id in (select model_id from model_tags where tag_id = new.id)')} end`,
  `create trigger model_lists_files_insert after insert on files when ${onlyOfFormat('new')} begin
    ${sqliteSetFormats('new')} end`,
  `create trigger model_lists_files_delete after delete on files when ${onlyOfFormat('old')} begin
    ${sqliteSetFormats('old')} end`,
]

/** Locks the models `ids` (a text array) in id order, so the next statement sees every committed change to them. */
const lockModels = (ids: string) => `perform 1 from models where id = any(${ids}) order by id for no key update;`

/** Statement-level triggers running `fn` after inserts (rows `added`) and deletes (rows `removed`) of `table`. */
const postgresInsertDeleteTriggers = (name: string, table: string, fn: string) => [
  `create trigger model_lists_${name}_insert after insert on ${table}
    referencing new table as added for each statement execute function ${fn}()`,
  `create trigger model_lists_${name}_delete after delete on ${table}
    referencing old table as removed for each statement execute function ${fn}()`,
]

const postgresTriggers = [
  // Links added or removed, or tags renamed: the models concerned get their tag list again.
  `create or replace function model_lists_tags_changed() returns trigger language plpgsql as $$
  declare changed text[];
  begin
    if tg_table_name = 'tags' then
      changed := array(select distinct mt.model_id from before_update o join after_update n using (id)
        join model_tags mt on mt.tag_id = n.id where (o.name, o.name_key) is distinct from (n.name, n.name_key));
    elsif tg_op = 'INSERT' then
      changed := array(select distinct model_id from added);
    else
      changed := array(select distinct model_id from removed);
    end if;
    if cardinality(changed) = 0 then return null; end if;
    ${lockModels('changed')}
    update models set tag_names = ${postgresLists.tagNames('models.id')} where id = any(changed);
    return null;
  end $$`,
  ...postgresInsertDeleteTriggers('tags', 'model_tags', 'model_lists_tags_changed'),
  // PostgreSQL refuses transition tables on a trigger with a column list: every update of tags, filtered inside.
  `create trigger model_lists_tags_renamed after update on tags
    referencing old table as before_update new table as after_update for each statement execute function model_lists_tags_changed()`,
  // Files added or removed: only models that gained their first file of a format, or lost their
  // last, change; which ones is decided after the lock, against every committed file.
  `create or replace function model_lists_files_changed() returns trigger language plpgsql as $$
  declare changed text[];
  begin
    if tg_op = 'INSERT' then
      changed := array(select distinct model_id from added);
      ${lockModels('changed')}
      changed := array(select distinct a.model_id from added a where not exists (select 1 from files f
        where f.model_id = a.model_id and f.format = a.format and not exists (select 1 from added x where x.id = f.id)));
    else
      changed := array(select distinct model_id from removed);
      ${lockModels('changed')}
      changed := array(select distinct r.model_id from removed r
        where not exists (select 1 from files f where f.model_id = r.model_id and f.format = r.format));
    end if;
    update models set file_formats = ${postgresLists.fileFormats('models.id')} where id = any(changed);
    return null;
  end $$`,
  ...postgresInsertDeleteTriggers('files', 'files', 'model_lists_files_changed'),
]
