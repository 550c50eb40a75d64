import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { listCollections } from './collections.js'
import { mediaFormats } from './file-roles.js'
import { countsOf } from './library-counts.js'
import { listTags } from './tags.js'

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
 * Totals and breakdowns, read from the counters the database keeps on every write (migration
 * 0013, `countsOf`): a handful of small rows at any library size, exact under concurrent
 * writers because each writer's transaction counts its own rows.
 */
export async function libraryStats(db: Kysely<Database>): Promise<LibraryStats> {
  const [models, dedup, formats, media, shared, slicers, tags, collections] = await Promise.all([
    countsOf(db, 'models').executeTakeFirst(),
    db.selectFrom('dedup_counter').select(['uploads', 'bytes']).executeTakeFirst(),
    // A format or slicer whose last file went stays as a row of zeros until it is folded away.
    countsOf(db, 'format')
      .having((eb) => eb.fn.sum('parts.files'), '>', 0)
      .orderBy('parts.key')
      .execute(),
    countsOf(db, 'media').executeTakeFirst(),
    countsOf(db, 'shared').executeTakeFirst(),
    countsOf(db, 'slicer')
      .having((eb) => eb.fn.sum('parts.files'), '>', 0)
      .orderBy('parts.key')
      .execute(),
    listTags(db),
    listCollections(db),
  ])
  const byFormat = formats.map((row) => ({
    format: row.key,
    files: Number(row.files),
    models: Number(row.models),
    bytes: Number(row.bytes),
  }))
  return {
    totals: {
      models: Number(models?.models ?? 0),
      files: byFormat.reduce((sum, row) => sum + row.files, 0),
      bytes_stored:
        byFormat.filter((row) => !mediaFormats.includes(row.format)).reduce((sum, row) => sum + row.bytes, 0) -
        Number(shared?.bytes ?? 0) +
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
    by_slicer: slicers.map((row) => ({ slicer: row.key, files: Number(row.files), models: Number(row.models) })),
  }
}
