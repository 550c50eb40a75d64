import type { Kysely } from 'kysely'
import { slicedObjectNames, slicedSourceKeys } from '../../formats/name-keys.js'

/**
 * A 3MF that carries sliced plates (a `.gcode.3mf`) is a sliced file: it joins the model of the
 * mesh it was sliced from, and is never a mesh to match. Its `sliced_sources` (the mesh names it
 * says it was sliced from) mark it so; filled here for the ones already stored, a page at a time.
 */
/** The tables as this migration reads and writes them. */
interface Tables {
  files: { id: string; format: string; original_name: string; metadata: string }
  sliced_sources: { file_id: string; name_key: string }
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>
  let after = ''
  for (;;) {
    const page = await db
      .selectFrom('files')
      .select(['id', 'original_name', 'metadata'])
      .where('format', '=', '3mf')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute()
    const last = page.at(-1)
    if (!last) break
    const rows = page.flatMap((file) => {
      const names = slicedObjectNames('3mf', JSON.parse(file.metadata))
      return names
        ? slicedSourceKeys(names, file.original_name).map((name_key) => ({ file_id: file.id, name_key }))
        : []
    })
    if (rows.length > 0)
      await db
        .insertInto('sliced_sources')
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .execute()
    after = last.id
  }
}

export async function down(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as unknown as Kysely<Tables>
  await db
    .deleteFrom('sliced_sources')
    .where('file_id', 'in', (qb) => qb.selectFrom('files').select('id').where('format', '=', '3mf'))
    .execute()
}
