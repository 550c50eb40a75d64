import type { Kysely } from 'kysely'

/**
 * `generated` on the generated-key tables: 1 on the key the vault generated for itself, under a
 * unique index, so processes that start together on an empty database store one key between
 * them. Before, each could insert its own and read the table before the others' rows were
 * committed, and replicas signed tokens with different keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['signing_keys', 'printer_credential_keys']) {
    await db.schema.alterTable(table).addColumn('generated', 'integer').execute()
    await db.schema.createIndex(`${table}_generated`).on(table).column('generated').unique().execute()
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['signing_keys', 'printer_credential_keys']) {
    await db.schema.dropIndex(`${table}_generated`).execute()
    await db.schema.alterTable(table).dropColumn('generated').execute()
  }
}
