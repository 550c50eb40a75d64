import { sql } from 'kysely'
import type { SearchIndex, SqlDialect } from '../../core/db/dialect.js'

// Terms are letters and digits only (see searchTerms), so they cannot carry tsquery operators.
const tsQuery = (terms: string[]) => sql`to_tsquery('simple', ${terms.map((term) => `${term}:*`).join(' & ')})`

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
  members: (terms) => sql`select model_id from model_search where document @@ ${tsQuery(terms)}`,
  // One model's row by its key, its vector tested: no pass over the GIN index's postings.
  holds: (terms) =>
    sql<boolean>`exists (select 1 from model_search where model_search.model_id = models.id and model_search.document @@ ${tsQuery(terms)})`,
  // The planner estimates matches from the column's statistics itself.
  estimate: async () => undefined,
}

/** The library's PostgreSQL spellings: `tsvector` search, byte-wise (`C`) name order. */
export const postgresDialect: SqlDialect = {
  search: postgresSearchIndex,
  nameSortKey: sql`lower(name collate "C")`,
  // The planner weighs a range against the sort index from its histograms.
  unindexed: (column) => sql`${sql.ref(`models.${column}`)}`,
  // SHARE mode conflicts with inserts, updates and deletes, not with reads.
  blockNewFileRows: async (trx) => {
    await sql`lock table files in share mode`.execute(trx)
  },
}
