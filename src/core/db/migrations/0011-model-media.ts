import { type Kysely, PostgresAdapter, sql } from 'kysely'

/**
 * Pictures and documents on models. A model gets `cover_file_id`, the image shown as its
 * thumbnail (kept by the application, not a foreign key: models and files would refer to each
 * other). Parts stay unique across the vault, but the same image or document may sit on several
 * models (one row each, one stored blob), so the unique index on `files.sha256` becomes two
 * partial ones. SQLite cannot drop a column's UNIQUE constraint: the table is rebuilt, with
 * foreign keys off meanwhile so dropping the old table does not null `dispatches.file_id`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('models').addColumn('cover_file_id', 'text').execute()
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table files drop constraint files_sha256_key`.execute(db)
  } else {
    await rebuildSqliteFilesWithoutUniqueSha256(db)
  }
  await db.schema
    .createIndex('files_part_sha256')
    .on('files')
    .column('sha256')
    .unique()
    .where(sql.ref('format'), 'not in', mediaFormats)
    .execute()
  await db.schema
    .createIndex('files_media_sha256')
    .on('files')
    .columns(['model_id', 'sha256'])
    .unique()
    .where(sql.ref('format'), 'in', mediaFormats)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('files_media_sha256').execute()
  await db.schema.dropIndex('files_part_sha256').execute()
  await db.schema.createIndex('files_sha256').on('files').column('sha256').unique().execute()
  await db.schema.alterTable('models').dropColumn('cover_file_id').execute()
}

const mediaFormats = [sql.lit('image'), sql.lit('document')]

async function rebuildSqliteFilesWithoutUniqueSha256(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{
    sql: string
  }>`select sql from sqlite_master where type = 'table' and name = 'files'`.execute(db)
  const createFiles = rows[0]?.sql ?? ''
  const createRebuilt = createFiles
    .replace(/("sha256" text not null) unique/i, '$1')
    .replace(/^create table "files"/i, 'create table "files_rebuilt"')
  if (!/"sha256" text not null unique/i.test(createFiles) || !createRebuilt.includes('"files_rebuilt"'))
    throw new Error('files.sha256 is not declared as expected; cannot rebuild the table')
  const indexes = await sql<{
    sql: string
  }>`select sql from sqlite_master where type = 'index' and tbl_name = 'files' and sql is not null`.execute(db)
  // PRAGMA foreign_keys is a no-op inside a transaction; SQLite migrations run outside one.
  const { rows: enforced } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)
  await sql`pragma foreign_keys = off`.execute(db)
  try {
    await sql`begin`.execute(db)
    try {
      await sql.raw(createRebuilt).execute(db)
      await sql`insert into files_rebuilt select * from files`.execute(db)
      await sql`drop table files`.execute(db)
      await sql`alter table files_rebuilt rename to files`.execute(db)
      for (const index of indexes.rows) await sql.raw(index.sql).execute(db)
      const broken = await sql`pragma foreign_key_check`.execute(db)
      if (broken.rows.length > 0) throw new Error('rebuilding files broke foreign keys')
      await sql`commit`.execute(db)
    } catch (error) {
      await sql`rollback`.execute(db)
      throw error
    }
  } finally {
    if (enforced[0]?.foreign_keys) await sql`pragma foreign_keys = on`.execute(db)
  }
}
