import { type Kysely, sql } from 'kysely'

/** One row that names this install; backups record it so a restore can say where data came from. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('installation')
    // A constant key: the table can hold one row only, whichever process starts first.
    .addColumn('singleton', 'integer', (col) => col.primaryKey().defaultTo(1).check(sql`singleton = 1`))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installation').execute()
}
