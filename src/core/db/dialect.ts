import type { Expression, Kysely, RawBuilder, SqlBool } from 'kysely'
import type { Database } from './schema.js'

/**
 * Full-text search over models, in the database's own engine (SQLite FTS5, PostgreSQL
 * `tsvector`). The library normalises documents and query terms before they reach it
 * (`normalizeSearchText`, `searchTerms`), so every engine sees the same words. A query
 * matches a model when every term is the start of a word of its document.
 */
export interface SearchIndex {
  /** Replaces the model's document; run it in the transaction that changed the model. */
  put(db: Kysely<Database>, modelId: string, text: string): Promise<void>
  /** A condition on `models.id` that holds for models whose document matches every term (non-empty, from `searchTerms`). */
  matches(terms: string[]): RawBuilder<SqlBool>
}

/**
 * What the library's queries need that SQL dialects spell differently. Each database adapter
 * supplies one with its `VaultDatabase`, so the core never asks which database it runs on.
 */
export interface SqlDialect {
  readonly search: SearchIndex
  /**
   * A model's name as the name sort orders it: ASCII-lower-cased and compared byte by byte,
   * matching the name index of migration 0004 exactly (or the sort stops using it).
   */
  readonly nameSortKey: RawBuilder<string>
  /**
   * An aggregate: the group's `value`s as the text of a JSON array in `orderBy` order, `[]` for
   * no rows; with `distinct`, each value once (`orderBy` must then be `value` itself). Callers
   * parse the text, so the spacing each database puts in it does not matter.
   */
  jsonArrayOf(
    value: Expression<string>,
    orderBy: Expression<string>,
    options?: { distinct?: boolean },
  ): RawBuilder<string>
  /**
   * Makes the transaction `trx` block inserts into `files` (not reads) until it ends, so a
   * clean-up can decide that no row references some bytes before deleting them.
   */
  blockNewFileRows(trx: Kysely<Database>): Promise<void>
}
