import type { CompiledQuery } from 'kysely'
import type { VaultDatabase } from '../db/database.js'
import type { CursorPosition } from './cursor.js'
import { checkCursorFits, isUnfiltered, type ModelQuery, modelPageQuery, type PageRow } from './model-query.js'
import { type SummaryColumn, summaryColumns } from './records.js'

/** The rows of a page of summaries: each model's summary columns and its sort value. */
export type SummaryRow = PageRow<SummaryColumn>

/**
 * A compiled page statement of the unfiltered listing, with where its per-request values go: the
 * rows wanted and, after a cursor, the position's sort value and id.
 */
interface PageTemplate {
  compiled: CompiledQuery<SummaryRow>
  slots: { limit: number; value?: number; id?: number }
}

/** Kept per database handle: each database spells the statement its own way. */
const templates = new WeakMap<VaultDatabase, Map<string, PageTemplate>>()

/**
 * Stand-ins compiled in place of the per-request values, then found among the statement's
 * parameters: their positions are where each request's values go. Nothing else in an unfiltered
 * page statement is a parameter equal to these.
 */
const stand = { limit: -918_273_645, text: '\u0000cursor value', number: -918_273_646.5, id: '\u0000cursor id' }

/**
 * The page of summaries `modelPageQuery` gives, at most `limit` rows after `after`. The unfiltered
 * listing (the library page, scrolled) runs a statement compiled once per sort, order and first or
 * later page, with the request's values bound in: building and compiling it with Kysely on every
 * request was about a tenth of a 50-model page's time in the core (measured with scripts/bench/request-overhead.ts).
 * A filtered listing's statement hangs on the sizes of its sets, read anew each time, and is built
 * each time.
 */
export async function summaryPage(
  database: VaultDatabase,
  query: ModelQuery,
  limit: number,
  after: CursorPosition | undefined,
): Promise<SummaryRow[]> {
  if (!isUnfiltered(query.filters))
    return (await modelPageQuery(database, query, limit, summaryColumns, after)).execute()
  checkCursorFits(query.sort, after)
  const template = await templateFor(database, query, after !== undefined)
  const parameters = [...template.compiled.parameters]
  parameters[template.slots.limit] = limit
  if (after && template.slots.value !== undefined && template.slots.id !== undefined) {
    parameters[template.slots.value] = after.value
    parameters[template.slots.id] = after.id
  }
  const result = await database.db.executeQuery<SummaryRow>({ ...template.compiled, parameters })
  return result.rows
}

/** The kept template, compiled on first use. */
async function templateFor(database: VaultDatabase, query: ModelQuery, paged: boolean): Promise<PageTemplate> {
  const kept = templates.get(database) ?? new Map<string, PageTemplate>()
  templates.set(database, kept)
  const key = `${query.sort} ${query.order} ${paged ? 'after' : 'first'}`
  const known = kept.get(key)
  if (known) return known
  const value = query.sort === 'size' ? stand.number : stand.text
  const statement = await modelPageQuery(
    database,
    { filters: {}, sort: query.sort, order: query.order },
    stand.limit,
    summaryColumns,
    paged ? { value, id: stand.id } : undefined,
  )
  const compiled = statement.compile() as CompiledQuery<SummaryRow>
  const slot = (standIn: unknown) => {
    const at = compiled.parameters.indexOf(standIn)
    // Each value is bound in one place; a statement that used one twice, or not at all, would need more than this.
    if (at === -1 || compiled.parameters.lastIndexOf(standIn) !== at)
      throw new Error(`the page statement does not hold ${String(standIn)} exactly once`)
    return at
  }
  const template = {
    compiled,
    slots: paged ? { limit: slot(stand.limit), value: slot(value), id: slot(stand.id) } : { limit: slot(stand.limit) },
  }
  kept.set(key, template)
  return template
}
