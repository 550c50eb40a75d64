import type { Kysely, RawBuilder, SqlBool } from 'kysely'
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
  /**
   * The ids (`model_id`, each once) of the models whose document matches every term (non-empty,
   * from `searchTerms`), read from the index: what a page is driven from when few models match.
   */
  members(terms: string[]): RawBuilder<{ model_id: string }>
  /**
   * A condition on `models.id` that holds for a model whose document matches every term,
   * checked model by model at a cost that does not grow with the index: what a page walking a
   * sort index tests (reading every match first costs a pass over a common word's postings).
   */
  holds(terms: string[]): RawBuilder<SqlBool>
  /**
   * No fewer than the models with a word starting with `term`, counted up to `cap` (`cap` means
   * "that many or more"), reading about `cap` index entries at most. Undefined when the index
   * cannot tell cheaply.
   */
  countUpTo(db: Kysely<Database>, term: string, cap: number): Promise<number | undefined>
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
   * The column as a value the planner does not look up in an index, so a wide range on it is
   * tested model by model while the sort key's index is walked (SQLite, without statistics,
   * otherwise reads the whole range and sorts it). The planner of a database with statistics
   * may still choose; that one gets the plain column.
   */
  unindexed(column: 'created_at' | 'updated_at'): RawBuilder<string>
  /**
   * Whether a walk of a sort index reads a model's row only once the conditions the index can
   * answer have passed (SQLite's deferred seek), so the walking statement may select the page's
   * columns itself. Where it does not (PostgreSQL fetches each walked row from the heap unless the
   * statement selects indexed columns only), a walk selects ids and the rows are read by id after it.
   */
  readonly defersRowReads: boolean
  /**
   * Makes the transaction `trx` block inserts into `files` (not reads) until it ends, so a
   * clean-up can decide that no row references some bytes before deleting them.
   */
  blockNewFileRows(trx: Kysely<Database>): Promise<void>
  /**
   * Makes the transaction `trx` keep a restore from taking its lock until `trx` ends: every write
   * transaction does this before it looks for a restore (core/backup/restore-fence.ts).
   */
  holdOffRestores(trx: Kysely<Database>): Promise<void>
  /**
   * Makes the transaction `trx` wait for every transaction inside `holdOffRestores` to end, and
   * keeps new ones waiting until `trx` ends: a restore writes its lock row in such a transaction,
   * so no write that looked for a restore before the row existed commits after it.
   */
  waitForWrites(trx: Kysely<Database>): Promise<void>
  /**
   * Makes transactions that call this take turns, from the call to their end, across every
   * process on the database: an upload chooses its model and stores its file in one turn, so the
   * next upload sees it (a mesh and its G-code arriving together meet on one model).
   */
  takeTurnsMatchingModels(trx: Kysely<Database>): Promise<void>
  /**
   * Makes transactions that call this take turns, from the call to their end, across every
   * process on the database: an event's id is taken and committed in one turn, so events commit
   * in the order of their ids and a reader that has seen id n never later finds a smaller one.
   */
  takeTurnsPublishingEvents(trx: Kysely<Database>): Promise<void>
}
