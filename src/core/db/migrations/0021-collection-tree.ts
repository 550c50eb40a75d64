import type { Kysely } from 'kysely'

/**
 * Collections nest: each may sit inside a parent collection (null: at the top). The foreign key
 * has no cascade, so a collection with children cannot be deleted by accident; the index lists a
 * collection's children and walks a subtree.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('collections')
    .addColumn('parent_id', 'text', (col) => col.references('collections.id'))
    .execute()
  await db.schema.createIndex('collections_by_parent').on('collections').columns(['parent_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('collections_by_parent').execute()
  await db.schema.alterTable('collections').dropColumn('parent_id').execute()
}
