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
  // The planner reads a common word's first matches from the table and a rare word's from the GIN
  // index. Its own estimate of a rare word is good, yet it may still walk the sort index to find
  // that word's models (0.9 s at a million models); the count lets the library decide.
  async countUpTo(db, term, cap) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from model_search
      where document @@ ${tsQuery([term])} limit ${cap}) as found`.execute(db)
    return Number(rows[0]?.n ?? 0)
  },
}

/** The advisory lock a restore takes exclusively and every write transaction shares ("vault-rs" in ASCII). */
const restoreAdvisoryLock = sql.lit(0x7661_756c_742d_7273n)

/** The advisory lock uploads take while they choose a model ("vault-mm" in ASCII). */
const modelMatchingAdvisoryLock = sql.lit(0x7661_756c_742d_6d6dn)

/** The advisory lock publishers of events take ("vault-ev" in ASCII). */
const eventPublishingAdvisoryLock = sql.lit(0x7661_756c_742d_6576n)

/** The library's PostgreSQL spellings: `tsvector` search, byte-wise (`C`) name order. */
export const postgresDialect: SqlDialect = {
  search: postgresSearchIndex,
  nameSortKey: sql`lower(name collate "C")`,
  // The planner weighs a range against the sort index from its histograms.
  unindexed: (column) => sql`${sql.ref(`models.${column}`)}`,
  // An index scan that selects any column outside the index fetches every walked row from the heap.
  defersRowReads: false,
  // SHARE mode conflicts with inserts, updates and deletes, not with reads.
  blockNewFileRows: async (trx) => {
    await sql`lock table files in share mode`.execute(trx)
  },
  // Transaction-level: released by the commit or rollback, and by PostgreSQL if the client dies.
  holdOffRestores: async (trx) => {
    await sql`select pg_advisory_xact_lock_shared(${restoreAdvisoryLock})`.execute(trx)
  },
  waitForWrites: async (trx) => {
    await sql`select pg_advisory_xact_lock(${restoreAdvisoryLock})`.execute(trx)
  },
  takeTurnsMatchingModels: async (trx) => {
    await sql`select pg_advisory_xact_lock(${modelMatchingAdvisoryLock})`.execute(trx)
  },
  // A sequence hands out ids as inserts run, not as they commit: without turns a reader could see
  // id 11 committed while 10 is still to come, and skip it when it resumes after 11.
  takeTurnsPublishingEvents: async (trx) => {
    await sql`select pg_advisory_xact_lock(${eventPublishingAdvisoryLock})`.execute(trx)
  },
}
