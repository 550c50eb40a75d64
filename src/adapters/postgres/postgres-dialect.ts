import { sql } from 'kysely'
import type { SearchIndex, SqlDialect } from '../../core/db/dialect.js'

/**
 * PostgreSQL full-text search: a `tsvector` per model under the `simple` configuration (no
 * stemming or stop words, like FTS5's `unicode61`), with a GIN index. Deleting a model
 * cascades to its row.
 */
const postgresSearchIndex: SearchIndex = {
  async put(db, modelId, text) {
    await sql`insert into model_search (model_id, document) values (${modelId}, to_tsvector('simple', ${text}))
      on conflict (model_id) do update set document = excluded.document`.execute(db)
  },
  // Terms are letters and digits only (see searchTerms), so they cannot carry tsquery operators.
  matches: (terms) =>
    sql<boolean>`models.id in (select model_id from model_search where document @@ to_tsquery('simple', ${terms.map((term) => `${term}:*`).join(' & ')}))`,
}

/** The library's PostgreSQL spellings: `tsvector` search, byte-wise (`C`) name order. */
export const postgresDialect: SqlDialect = {
  search: postgresSearchIndex,
  nameSortKey: sql`lower(name collate "C")`,
  // json_agg is null over no rows; the cast to text keeps the driver from parsing it (the core parses).
  jsonArrayOf: (value, orderBy, options) =>
    sql<string>`coalesce(json_agg(${options?.distinct ? sql`distinct ` : sql``}${value} order by ${orderBy})::text, '[]')`,
  // SHARE mode conflicts with inserts, updates and deletes, not with reads.
  blockNewFileRows: async (trx) => {
    await sql`lock table files in share mode`.execute(trx)
  },
}
