import type { AccountsDeps } from '../accounts/accounts-deps.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import type { LibraryDeps } from './library-deps.js'
import { type ModelQuery, queryScope } from './model-query.js'
import { type ModelSummaryRecord, toModelSummary } from './models.js'
import { summaryPage } from './page-statements.js'

/** One page of a model listing. */
export interface ModelPage {
  items: ModelSummaryRecord[]
  /** Where the next page starts; null on the last page. */
  next_cursor: string | null
}

/**
 * The page of models matching `query` that follows `page.cursor` (the first page without
 * one). Cursors are signed with the current token signing secret and bound to the query,
 * so one made for other filters or order is refused (see `encodeCursor`).
 *
 * One statement reading the page's rows and nothing else: each model's tag names and file
 * formats are kept on its row (migration 0014), where aggregating them per model cost a 50-model
 * page most of its SQLite time. Only the columns a summary shows are read: building JavaScript
 * rows of every column cost a page a tenth to a sixth of its SQLite time.
 */
export async function listModels(
  deps: Pick<LibraryDeps, 'database'> & Pick<AccountsDeps, 'keys'>,
  query: ModelQuery,
  page: { limit: number; cursor?: string | undefined },
): Promise<ModelPage> {
  const cursorKey = deps.keys.current().signingKeys.current.secret
  const scope = queryScope(query)
  const after = page.cursor === undefined ? undefined : decodeCursor(cursorKey, scope, page.cursor)
  const rows = await summaryPage(deps.database, query, page.limit + 1, after)
  const items = rows.slice(0, page.limit).map(toModelSummary)
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined
  return {
    items,
    next_cursor: last ? encodeCursor(cursorKey, scope, { value: last.sort_value, id: last.id }) : null,
  }
}
