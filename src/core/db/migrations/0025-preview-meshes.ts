import type { Kysely } from 'kysely'

/**
 * A large mesh's preview (a simplified copy, binary STL, kept in the thumbnail store): its key and
 * triangle count. Null for files read before, and for meshes small enough to view as they are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('files').addColumn('preview_sha256', 'text').execute()
  await db.schema.alterTable('files').addColumn('preview_triangles', 'integer').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('files').dropColumn('preview_triangles').execute()
  await db.schema.alterTable('files').dropColumn('preview_sha256').execute()
}
