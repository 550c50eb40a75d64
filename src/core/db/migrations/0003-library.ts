import type { Kysely } from 'kysely'

/**
 * Models and their files. `files.sha256` is unique: one stored content, one file row, which
 * is what makes a repeated or concurrent upload of the same bytes a no-op. Geometry figures
 * of mesh files are columns (not only JSON) so a new upload can find the model whose mesh it
 * matches with an indexed query.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('models')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('thumbnail_sha256', 'text')
    .addColumn('thumbnail_content_type', 'text')
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('sha256', 'text', (col) => col.notNull().unique())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('model_id', 'text', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('original_name', 'text', (col) => col.notNull())
    // The name folded for matching a G-code to the mesh it was sliced from (see model-matching).
    .addColumn('name_key', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    // Extracted metadata as JSON text: portable across SQLite, PostgreSQL and D1.
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('parse_warnings', 'text', (col) => col.notNull())
    .addColumn('mesh_triangles', 'integer')
    .addColumn('mesh_size_x', 'double precision')
    .addColumn('mesh_size_y', 'double precision')
    .addColumn('mesh_size_z', 'double precision')
    .addColumn('mesh_volume', 'double precision')
    .addColumn('thumbnail_sha256', 'text')
    .addColumn('thumbnail_content_type', 'text')
    .addColumn('uploaded_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('files_model').on('files').column('model_id').execute()
  await db.schema.createIndex('files_mesh').on('files').column('mesh_triangles').execute()
  await db.schema.createIndex('files_name_key').on('files').column('name_key').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('files').execute()
  await db.schema.dropTable('models').execute()
}
