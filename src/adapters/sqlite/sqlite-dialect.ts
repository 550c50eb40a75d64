import { type Kysely, sql } from 'kysely'
import type { SearchIndex, SqlDialect } from '../../core/db/dialect.js'
import type { Database } from '../../core/db/schema.js'

// Terms are letters and digits only (see searchTerms), so quoting them is all FTS5 needs.
const ftsQuery = (terms: string[]) => terms.map((term) => `"${term}"*`).join(' ')

/**
 * SQLite FTS5. The virtual table `model_search` holds one row per model; its integer rowid
 * maps to the model through `model_search_docs` (FTS5 has no indexed text key, and a rowid
 * table's implicit rowid may change on VACUUM). Deleting a model cascades to its
 * `model_search_docs` row, whose trigger deletes the FTS row.
 */
const sqliteSearchIndex: SearchIndex = {
  async put(db, modelId, text) {
    const existing = await sql<{
      doc_id: number
    }>`select doc_id from model_search_docs where model_id = ${modelId}`.execute(db)
    const docId = existing.rows[0]?.doc_id
    if (docId !== undefined) {
      await sql`update model_search set body = ${text} where rowid = ${docId}`.execute(db)
      return
    }
    await sql`insert into model_search_docs (model_id) values (${modelId})`.execute(db)
    await sql`insert into model_search (rowid, body)
      select doc_id, ${text} from model_search_docs where model_id = ${modelId}`.execute(db)
  },
  members: (terms) =>
    sql`select d.model_id from model_search s join model_search_docs d on d.doc_id = s.rowid where model_search match ${ftsQuery(terms)}`,
  // FTS5 answers a MATCH by reading the terms' whole postings even for one rowid, so a model is
  // checked on its stored document instead: the body is normalised text (words separated by
  // single spaces), where a word starting with the term is ' ' + term after a leading space.
  holds: (terms) =>
    sql<boolean>`exists (select 1 from model_search_docs d join model_search s on s.rowid = d.doc_id where d.model_id = models.id and ${sql.join(
      terms.map((term) => sql`instr(' ' || s.body, ${` ${term}`}) > 0`),
      sql` and `,
    )})`,
  countUpTo: async () => undefined,
}

/** Takes SQLite's one database write lock for the rest of the transaction, by a write that changes nothing. */
async function takeWriteLock(trx: Kysely<Database>): Promise<void> {
  await sql`update dedup_counter set uploads = uploads where singleton = 1`.execute(trx)
}

/** The library's SQLite spellings: FTS5 search, `lower()` over the default binary collation. */
export const sqliteDialect: SqlDialect = {
  search: sqliteSearchIndex,
  nameSortKey: sql`lower(name)`,
  // A unary + makes the term an expression, which SQLite never answers from an index.
  unindexed: (column) => sql`+${sql.ref(`models.${column}`)}`,
  // A walk reads the row of a model that passed the tests in the index (OP_DeferredSeek), no other.
  defersRowReads: true,
  // Any write takes SQLite's one database write lock, which holds off every other writer.
  blockNewFileRows: (trx) => takeWriteLock(trx),
  // The write lock, taken before the matching reads: another process's upload waits for it.
  takeTurnsMatchingModels: (trx) => takeWriteLock(trx),
  // One writer at a time already: a restore's lock row and another write never commit side by side.
  holdOffRestores: async () => {},
  waitForWrites: async () => {},
  // One writer at a time: ids are taken and committed in the same order already.
  takeTurnsPublishingEvents: async () => {},
}

/**
 * The search index's vocabulary as the connection sees it (FTS5's `fts5vocab`, one row per
 * occurrence of a word, in word order), created in the `temp` schema of each connection that
 * estimates, so no backup or dump ever holds it. D1, which keeps no connection, estimates nothing.
 */
export const searchVocabularyTable =
  'create virtual table if not exists temp.model_search_vocab using fts5vocab(main, model_search, instance)'

/** SQLite on a file: the dialect with counts from the connection's vocabulary table (`searchVocabularyTable`). */
export const sqliteFileDialect: SqlDialect = {
  ...sqliteDialect,
  search: {
    ...sqliteSearchIndex,
    // Occurrences, not documents: no fewer. Counting stops at the cap, so a common word costs no
    // more than a rare one (fts5vocab's per-word document counts read every posting: 35 ms for a
    // word in a third of a million models).
    async countUpTo(db, term, cap) {
      // The highest code point: every word longer than the term that starts with it sorts before it.
      const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from temp.model_search_vocab
        where term >= ${term} and term < ${`${term}\u{10FFFF}`} limit ${cap})`.execute(db)
      return Number(rows[0]?.n ?? 0)
    },
  },
}
