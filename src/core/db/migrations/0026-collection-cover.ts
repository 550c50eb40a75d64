import type { Kysely } from 'kysely'

/**
 * The model a person chose as a collection's cover (its thumbnail shows for the collection); null
 * when none was chosen, or the model went: then the first of its models with a thumbnail stands in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('collections')
    .addColumn('cover_model_id', 'text', (column) => column.references('models.id').onDelete('set null'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('collections').dropColumn('cover_model_id').execute()
}
