import { type Kysely, sql } from 'kysely'
import type { Database } from '../../src/core/db/schema.js'
import type { LibraryStats } from '../../src/core/library/stats.js'

/**
 * The library's stats counted from scratch with plain aggregate queries over every row (what
 * `libraryStats` did before the counters), to check the kept counters against.
 */
export async function recountLibrary(db: Kysely<Database>): Promise<LibraryStats> {
  const n = Number
  const models = await db
    .selectFrom('models')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  const dedup = await db.selectFrom('dedup_counter').select(['uploads', 'bytes']).executeTakeFirstOrThrow()
  const formats = await sql<{ format: string; files: number; models: number; bytes: number }>`
    select format, count(*) as files, count(distinct model_id) as models, sum(size) as bytes
    from files group by format order by format`.execute(db)
  const parts = await sql<{ bytes: number | null }>`
    select sum(size) as bytes from (select distinct sha256, size from files where format not in ('image', 'document')) blobs`.execute(
    db,
  )
  const media = await sql<{ bytes: number | null }>`
    select sum(size) as bytes from (select distinct sha256, size from files where format in ('image', 'document')) blobs`.execute(
    db,
  )
  const slicers = await sql<{ slicer: string; files: number; models: number }>`
    select slicer, count(*) as files, count(distinct model_id) as models
    from files where slicer is not null group by slicer order by slicer`.execute(db)
  const tags = await sql<{ tag: string; models: number }>`
    select t.name as tag, count(*) as models from model_tags mt join tags t on t.id = mt.tag_id
    group by t.id, t.name, t.name_key order by t.name_key`.execute(db)
  const collections = await sql<{ id: string; name: string; models: number }>`
    select c.id, c.name, count(cm.model_id) as models from collections c
    left join collection_models cm on cm.collection_id = c.id
    group by c.id, c.name, c.name_key order by c.name_key, c.id`.execute(db)
  const byFormat = formats.rows.map((row) => ({
    format: row.format,
    files: n(row.files),
    models: n(row.models),
    bytes: n(row.bytes),
  }))
  return {
    totals: {
      models: n(models.n),
      files: byFormat.reduce((sum, row) => sum + row.files, 0),
      bytes_stored: n(parts.rows[0]?.bytes ?? 0) + n(media.rows[0]?.bytes ?? 0),
      duplicate_uploads: n(dedup.uploads),
      bytes_saved_by_dedup: n(dedup.bytes),
    },
    by_format: byFormat,
    by_tag: tags.rows.map((row) => ({ tag: row.tag, models: n(row.models) })),
    by_collection: collections.rows.map((row) => ({ id: row.id, name: row.name, models: n(row.models) })),
    by_slicer: slicers.rows.map((row) => ({ slicer: row.slicer, files: n(row.files), models: n(row.models) })),
  }
}
