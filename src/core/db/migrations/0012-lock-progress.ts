import type { Kysely } from 'kysely'

/**
 * A lock's holder can say how far it has got: a restore writes its progress there, so every
 * process of the install answers 503 with that progress while it runs, not only its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('locks').addColumn('progress', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('locks').dropColumn('progress').execute()
}
