import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { listCollections } from './collections.js'
import { listTags } from './models.js'

export interface LibraryStats {
  totals: {
    models: number
    files: number
    /** Bytes of all stored files; each distinct content is stored once. */
    bytes_stored: number
    /** Uploads answered as duplicates (the vault already held the bytes). */
    duplicate_uploads: number
    /** The bytes of those uploads: what storing every upload would have cost on top. */
    bytes_saved_by_dedup: number
  }
  by_format: { format: string; files: number; models: number; bytes: number }[]
  by_tag: { tag: string; models: number }[]
  by_collection: { id: string; name: string; models: number }[]
  by_slicer: { slicer: string; files: number; models: number }[]
}

/**
 * Totals and breakdowns. Totals come from the per-model summary columns (one pass over
 * models); breakdowns by format and slicer from covering indexes on files.
 */
export async function libraryStats(db: Kysely<Database>): Promise<LibraryStats> {
  const [totals, dedup, formats, slicers, tags, collections] = await Promise.all([
    db
      .selectFrom('models')
      .select((eb) => [eb.fn.countAll<number>().as('models'), eb.fn.sum<number>('file_count').as('files'), eb.fn.sum<number>('total_size').as('bytes')])
      .executeTakeFirstOrThrow(),
    db.selectFrom('dedup_counter').select(['uploads', 'bytes']).executeTakeFirst(),
    db
      .selectFrom('files')
      .select((eb) => ['format', eb.fn.countAll<number>().as('files'), eb.fn.count<number>('model_id').distinct().as('models'), eb.fn.sum<number>('size').as('bytes')])
      .groupBy('format')
      .orderBy('format')
      .execute(),
    db
      .selectFrom('files')
      .select((eb) => ['slicer', eb.fn.countAll<number>().as('files'), eb.fn.count<number>('model_id').distinct().as('models')])
      .where('slicer', 'is not', null)
      .groupBy('slicer')
      .orderBy('slicer')
      .execute(),
    listTags(db),
    listCollections(db),
  ])
  return {
    totals: {
      models: Number(totals.models),
      files: Number(totals.files ?? 0),
      bytes_stored: Number(totals.bytes ?? 0),
      duplicate_uploads: Number(dedup?.uploads ?? 0),
      bytes_saved_by_dedup: Number(dedup?.bytes ?? 0),
    },
    by_format: formats.map((row) => ({ format: row.format, files: Number(row.files), models: Number(row.models), bytes: Number(row.bytes) })),
    by_tag: tags.map((tag) => ({ tag: tag.name, models: tag.model_count })),
    by_collection: collections.map((collection) => ({ id: collection.id, name: collection.name, models: collection.model_count })),
    by_slicer: slicers.map((row) => ({ slicer: row.slicer!, files: Number(row.files), models: Number(row.models) })),
  }
}
