import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { listCollections } from './collections.js'
import { mediaFormats } from './file-roles.js'
import { listTags } from './models.js'

export interface LibraryStats {
  totals: {
    models: number
    files: number
    /** Bytes of all stored content: each distinct content once (an image on two models shares one blob). */
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
 * Totals and breakdowns. Breakdowns by format and slicer come from covering indexes on
 * files; the file and byte totals are the sums of the format breakdown (so no pass over
 * the model rows); the model count is a plain `count(*)`, answered from an index.
 */
export async function libraryStats(db: Kysely<Database>): Promise<LibraryStats> {
  const [totals, dedup, formats, media, slicers, tags, collections] = await Promise.all([
    db
      .selectFrom('models')
      .select((eb) => eb.fn.countAll<number>().as('models'))
      .executeTakeFirstOrThrow(),
    db.selectFrom('dedup_counter').select(['uploads', 'bytes']).executeTakeFirst(),
    db
      .selectFrom('files')
      .select((eb) => [
        'format',
        eb.fn.countAll<number>().as('files'),
        eb.fn.count<number>('model_id').distinct().as('models'),
        eb.fn.sum<number>('size').as('bytes'),
      ])
      .groupBy('format')
      .orderBy('format')
      .execute(),
    // Images and documents are unique per model only: their blobs are counted once each here.
    db
      .selectFrom((eb) =>
        eb
          .selectFrom('files')
          .select(['sha256', 'size'])
          .distinct()
          .where('format', 'in', mediaFormats)
          .as('media_blobs'),
      )
      .select((eb) => eb.fn.sum<number>('size').as('bytes'))
      .executeTakeFirst(),
    db
      .selectFrom('files')
      .select((eb) => [
        'slicer',
        eb.fn.countAll<number>().as('files'),
        eb.fn.count<number>('model_id').distinct().as('models'),
      ])
      .where('slicer', 'is not', null)
      .$narrowType<{ slicer: string }>()
      .groupBy('slicer')
      .orderBy('slicer')
      .execute(),
    listTags(db),
    listCollections(db),
  ])
  const byFormat = formats.map((row) => ({
    format: row.format,
    files: Number(row.files),
    models: Number(row.models),
    bytes: Number(row.bytes),
  }))
  return {
    totals: {
      models: Number(totals.models),
      files: byFormat.reduce((sum, row) => sum + row.files, 0),
      bytes_stored:
        byFormat.filter((row) => !mediaFormats.includes(row.format)).reduce((sum, row) => sum + row.bytes, 0) +
        Number(media?.bytes ?? 0),
      duplicate_uploads: Number(dedup?.uploads ?? 0),
      bytes_saved_by_dedup: Number(dedup?.bytes ?? 0),
    },
    by_format: byFormat,
    by_tag: tags.map((tag) => ({ tag: tag.name, models: tag.model_count })),
    by_collection: collections.map((collection) => ({
      id: collection.id,
      name: collection.name,
      models: collection.model_count,
    })),
    by_slicer: slicers.map((row) => ({ slicer: row.slicer, files: Number(row.files), models: Number(row.models) })),
  }
}
