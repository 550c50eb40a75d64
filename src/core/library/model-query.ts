import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely'
import type { VaultDatabase } from '../db/database.js'
import type { SqlDialect } from '../db/dialect.js'
import type { Database, ModelsTable } from '../db/schema.js'
import { type CursorPosition, invalidCursor } from './cursor.js'
import { searchTerms } from './search-text.js'

export const sortKeys = ['name', 'created', 'updated', 'size'] as const
export type SortKey = (typeof sortKeys)[number]
export type SortOrder = 'asc' | 'desc'

/** What narrows a model listing or export. Every filter given must hold. */
export interface ModelFilters {
  /** Full-text query: every word must start a word of the model's document. */
  q?: string
  /** Tag names (any case): the model has all of them. */
  tags?: string[]
  /** Collection id: the model is in it. */
  collection?: string
  /** File formats: the model has a file of at least one of them. */
  formats?: string[]
  /** The model has (true) or has no (false) G-code file. */
  hasGcode?: boolean
  /** ISO-8601 UTC instants; `from` inclusive, `to` exclusive. */
  createdFrom?: string
  createdTo?: string
  updatedFrom?: string
  updatedTo?: string
}

export interface ModelQuery {
  filters: ModelFilters
  sort: SortKey
  order: SortOrder
}

export type ModelRow = Selectable<ModelsTable> & { sort_value: string | number }

/** The query in canonical form: what a cursor is bound to. */
export function queryScope(query: ModelQuery): string {
  const f = query.filters
  return JSON.stringify([
    query.sort,
    query.order,
    searchTerms(f.q ?? ''),
    [...new Set((f.tags ?? []).map(tagKey))].sort(),
    f.collection ?? null,
    [...new Set(f.formats ?? [])].sort(),
    f.hasGcode ?? null,
    f.createdFrom ?? null,
    f.createdTo ?? null,
    f.updatedFrom ?? null,
    f.updatedTo ?? null,
  ])
}

/** Tags are unique regardless of case. */
export const tagKey = (name: string) => name.toLowerCase()

/**
 * The sort key as an SQL expression, matching an index of migration 0004 exactly. Names
 * sort by ASCII-lower-cased bytes, identically on every database.
 */
function sortExpression(dialect: SqlDialect, sort: SortKey): RawBuilder<string | number> {
  switch (sort) {
    case 'name':
      return dialect.nameSortKey
    case 'created':
      return sql`created_at`
    case 'updated':
      return sql`updated_at`
    case 'size':
      return sql`total_size`
  }
}

/**
 * One page of models in keyset order: rows after `after` (exclusive) in the order asked,
 * ties broken by id. Every page costs the same (an index range scan, never OFFSET).
 * Fetches one row more than `limit` to know whether another page follows.
 */
export async function fetchModelPage(
  database: VaultDatabase,
  query: ModelQuery,
  limit: number,
  after?: CursorPosition,
): Promise<{ rows: ModelRow[]; more: boolean }> {
  const rows = (await modelPageQuery(database, query, limit + 1, after).execute()) as ModelRow[]
  return { rows: rows.slice(0, limit), more: rows.length > limit }
}

/**
 * The statement of `fetchModelPage`: at most `limit` models after `after`, every column and
 * `sort_value`, for callers that select more around it.
 */
export function modelPageQuery(database: VaultDatabase, query: ModelQuery, limit: number, after?: CursorPosition) {
  const { db, dialect } = database
  const sortValue = sortExpression(dialect, query.sort)
  if (after && (typeof after.value === 'number') !== (query.sort === 'size'))
    throw invalidCursor('The cursor does not fit this sort.')
  const direction = sortDirection(query.order)
  const all = filtered(db, dialect, query.filters).selectAll('models').select(sortValue.as('sort_value'))
  const rest =
    after === undefined
      ? all
      : all.where(
          sql<boolean>`(${sortValue}, models.id) ${sql.raw(query.order === 'asc' ? '>' : '<')} (${after.value}, ${after.id})`,
        )
  return rest.orderBy(sql`${sortValue} ${direction}`).orderBy(sql`models.id ${direction}`).limit(limit)
}

export const sortDirection = (order: SortOrder) => (order === 'asc' ? sql.raw('asc') : sql.raw('desc'))

function filtered(db: Kysely<Database>, dialect: SqlDialect, filters: ModelFilters) {
  const terms = searchTerms(filters.q ?? '')
  let qb = db.selectFrom('models')
  if (terms.length > 0) qb = qb.where(dialect.search.matches(terms))
  for (const key of new Set((filters.tags ?? []).map(tagKey))) {
    qb = qb.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('model_tags')
          .innerJoin('tags', 'tags.id', 'model_tags.tag_id')
          .select(sql`1`.as('one'))
          .whereRef('model_tags.model_id', '=', 'models.id')
          .where('tags.name_key', '=', key),
      ),
    )
  }
  if (filters.collection !== undefined) {
    const collection = filters.collection
    qb = qb.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('collection_models')
          .select(sql`1`.as('one'))
          .where('collection_models.collection_id', '=', collection)
          .whereRef('collection_models.model_id', '=', 'models.id'),
      ),
    )
  }
  if (filters.formats && filters.formats.length > 0) {
    const formats = filters.formats
    qb = qb.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('files')
          .select(sql`1`.as('one'))
          .whereRef('files.model_id', '=', 'models.id')
          .where('files.format', 'in', formats),
      ),
    )
  }
  if (filters.hasGcode !== undefined) {
    const hasGcode = filters.hasGcode
    qb = qb.where(({ exists, not, selectFrom }) => {
      const gcode = exists(
        selectFrom('files')
          .select(sql`1`.as('one'))
          .whereRef('files.model_id', '=', 'models.id')
          .where('files.format', '=', 'gcode'),
      )
      return hasGcode ? gcode : not(gcode)
    })
  }
  if (filters.createdFrom) qb = qb.where('models.created_at', '>=', filters.createdFrom)
  if (filters.createdTo) qb = qb.where('models.created_at', '<', filters.createdTo)
  if (filters.updatedFrom) qb = qb.where('models.updated_at', '>=', filters.updatedFrom)
  if (filters.updatedTo) qb = qb.where('models.updated_at', '<', filters.updatedTo)
  return qb
}
