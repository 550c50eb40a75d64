import type { Kysely } from 'kysely'

/**
 * A model page lists the sends of its files (`GET /dispatches?model_id=`), newest first: an index
 * from a file to its dispatches by time. It also spares deleting a file a pass over every
 * dispatch, which its foreign key (`on delete set null`) would otherwise make.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('dispatches_file').on('dispatches').columns(['file_id', 'created_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dispatches_file').execute()
}
