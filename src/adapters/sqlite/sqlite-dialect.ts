import { sql } from 'kysely'
import type { SearchIndex, SqlDialect } from '../../core/db/dialect.js'

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
  // Terms are letters and digits only (see searchTerms), so quoting them is all FTS5 needs.
  // The unary `+` stops SQLite from driving the query from the matches (fetching every
  // matching model and sorting them all: about 200 ms for a word in a third of 100,000 models); it
  // walks the sort key's index instead and checks each model against the matches, stopping
  // when the page is full.
  matches: (terms) =>
    sql<boolean>`+models.id in (select d.model_id from model_search s join model_search_docs d on d.doc_id = s.rowid where model_search match ${terms.map((term) => `"${term}"*`).join(' ')})`,
}

/** The library's SQLite spellings: FTS5 search, `lower()` over the default binary collation. */
export const sqliteDialect: SqlDialect = {
  search: sqliteSearchIndex,
  nameSortKey: sql`lower(name)`,
  // ORDER BY inside an aggregate needs SQLite 3.44 (better-sqlite3 bundles a newer one, and so does workerd's D1).
  jsonArrayOf: (value, orderBy, options) =>
    sql<string>`json_group_array(${options?.distinct ? sql`distinct ` : sql``}${value} order by ${orderBy})`,
  // Any write takes SQLite's one database write lock, which holds off every other writer.
  blockNewFileRows: async (trx) => {
    await sql`update dedup_counter set uploads = uploads where singleton = 1`.execute(trx)
  },
}
