import type { Kysely } from 'kysely'

/**
 * `merge_dismissals`: groups of models a person said are not one model, one row per model of a
 * group. A group whose every model shares one `dismissal_id` is not suggested for merging again;
 * a model that joins it later makes it a new group. Deleting or merging a model away deletes its
 * rows (foreign key with cascade on both databases).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('merge_dismissals')
    .addColumn('dismissal_id', 'text', (col) => col.notNull())
    .addColumn('model_id', 'text', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('dismissed_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('merge_dismissals_pk', ['dismissal_id', 'model_id'])
    .execute()
  await db.schema.createIndex('merge_dismissals_model').on('merge_dismissals').column('model_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('merge_dismissals').execute()
}
