import type { Kysely } from 'kysely'

/**
 * API keys get scopes (space-separated, see `api-key-scopes.ts`) and an optional expiry. Keys made
 * before scopes existed keep doing all they did: they get `full`, and no expiry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('scopes', 'text', (column) => column.notNull().defaultTo('full'))
    .execute()
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute()
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute()
}
