import type { Kysely } from 'kysely'
import { slicedSourceKeys } from '../../formats/name-keys.js'

/**
 * `sliced_sources`: the mesh names each G-code file says it was sliced from, so a mesh uploaded
 * after its G-code finds the G-code's model by an index instead of reading every G-code's
 * metadata. Filled here for the G-code already stored, a page at a time.
 */
/** The tables as this migration reads and writes them. */
interface Tables {
  files: { id: string; format: string; original_name: string; metadata: string }
  sliced_sources: { file_id: string; name_key: string }
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>
  await db.schema
    .createTable('sliced_sources')
    .addColumn('file_id', 'text', (col) => col.notNull().references('files.id').onDelete('cascade'))
    .addColumn('name_key', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('sliced_sources_pk', ['file_id', 'name_key'])
    .execute()
  await db.schema.createIndex('sliced_sources_name').on('sliced_sources').columns(['name_key']).execute()

  let after = ''
  for (;;) {
    const page = await db
      .selectFrom('files')
      .select(['id', 'original_name', 'metadata'])
      .where('format', '=', 'gcode')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute()
    const last = page.at(-1)
    if (!last) break
    const rows = page.flatMap((file) => {
      const objects = (JSON.parse(file.metadata) as { gcode?: { objects?: unknown } }).gcode?.objects
      const names = Array.isArray(objects) ? objects.filter((name): name is string => typeof name === 'string') : []
      return slicedSourceKeys(names, file.original_name).map((name_key) => ({ file_id: file.id, name_key }))
    })
    if (rows.length > 0) await db.insertInto('sliced_sources').values(rows).execute()
    after = last.id
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sliced_sources').execute()
}
