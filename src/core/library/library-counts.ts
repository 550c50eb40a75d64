import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'

/**
 * What `library_counts` counts (migrations 0013 and 0017 keep them): the key is '' for `models`,
 * `media` and `shared` (bytes of part files whose content another part file holds), else a
 * format, slicer, tag id or collection id.
 */
export type CountKind = 'models' | 'format' | 'slicer' | 'media' | 'shared' | 'tag' | 'collection'

/**
 * The current counters of one kind, one row per key: the kept row plus the deltas PostgreSQL
 * has not folded into it yet (at most a few thousand rows; SQLite keeps none). Reading them
 * costs the same at any library size, and as a subquery it joins to tags or collections.
 */
export function countsOf(db: Kysely<Database>, kind: CountKind) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('library_counts')
        .select(['key', 'models', 'files', 'bytes'])
        .where('kind', '=', kind)
        .unionAll(
          eb.selectFrom('library_count_deltas').select(['key', 'models', 'files', 'bytes']).where('kind', '=', kind),
        )
        .as('parts'),
    )
    .select((eb) => [
      'parts.key',
      eb.fn.sum<number>('parts.models').as('models'),
      eb.fn.sum<number>('parts.files').as('files'),
      eb.fn.sum<number>('parts.bytes').as('bytes'),
    ])
    .groupBy('parts.key')
}
