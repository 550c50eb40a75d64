import type { Kysely } from 'kysely'

/**
 * The backup catalogue and a lock table. `locks` makes "one backup or restore at a time"
 * hold across processes sharing the database: a row is the lock, with an expiry that the
 * holder keeps pushing forward, so a crashed holder's lock lapses on its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('backups')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('file_name', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text')
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('bytes_done', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bytes_total', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('size', 'bigint')
    .addColumn('sha256', 'text')
    .addColumn('manifest', 'text')
    .addColumn('error', 'text')
    .addColumn('s3_status', 'text', (col) => col.notNull())
    .addColumn('s3_error', 'text')
    .execute()
  await db.schema.createIndex('backups_started').on('backups').column('started_at').execute()

  await db.schema
    .createTable('locks')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('owner', 'text', (col) => col.notNull())
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('locks').execute()
  await db.schema.dropTable('backups').execute()
}
