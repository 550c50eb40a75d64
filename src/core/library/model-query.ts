import {
  type Expression,
  type ExpressionBuilder,
  type RawBuilder,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely'
import type { VaultDatabase } from '../db/database.js'
import type { SqlDialect } from '../db/dialect.js'
import type { Database, ModelsTable } from '../db/schema.js'
import { collectionSubtree } from './collections.js'
import { type CursorPosition, invalidCursor } from './cursor.js'
import { countsOf } from './library-counts.js'
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
  /** With `collection`: the model is in it or in a collection inside it, at any depth. */
  collectionDescendants?: boolean
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

/** A column of `models`, which a page statement selects by name. */
export type ModelColumn = keyof Selectable<ModelsTable>
/** A page statement's row: the columns asked for and the sort key's value (a cursor's position). */
export type PageRow<C extends ModelColumn> = Pick<Selectable<ModelsTable>, C> & { sort_value: string | number }
/** A page statement's row with every column (the export's). */
export type ModelRow = PageRow<ModelColumn>

/** The query in canonical form: what a cursor is bound to. */
export function queryScope(query: ModelQuery): string {
  const f = query.filters
  return JSON.stringify([
    query.sort,
    query.order,
    searchTerms(f.q ?? ''),
    [...new Set((f.tags ?? []).map(tagKey))].sort(),
    f.collection ?? null,
    f.collectionDescendants ?? false,
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
 * A filter that is a set of models (search terms, a tag, the collection, file formats): tested
 * model by model while a page walks the sort key's index, or listing its members when it is
 * small enough to drive the page instead.
 */
interface MemberSet {
  /**
   * No fewer models than it holds (a search word's, only counted up to the drive bound: the bound
   * then means "that many or more"); undefined when the database cannot count cheaply (D1's search).
   */
  size: number | undefined
  /** `models.id in (its members)`: the database may read the members and look the models up. */
  listed: Condition
  /** The same, tested on one model at a time (never reads the whole set). */
  holds: Condition
}

type Condition = RawBuilder<SqlBool> | ((eb: ExpressionBuilder<Database, 'models'>) => Expression<SqlBool>)

/**
 * Sets with fewer members than this drive a page of `rows` in a library of `models`. Driving
 * reads every member and sorts them: cost ∝ members. Walking the sort key's index tests models
 * until `rows` members turn up: cost ∝ rows × models / members (a tag on 1,000 of 1,000,000
 * models walks ~50,000 a page). Both cost about the same per row read (measured at 200,000 and
 * 1,000,000 models, docs/benchmarks.md, issue 18), so the cheaper is the one below
 * members² = rows × models: at a million models and 51 rows, sets under ~7,100 drive.
 */
export const driveBound = (rows: number, models: number) => Math.ceil(Math.sqrt(rows * models))

/**
 * One page of models in keyset order: rows after `after` (exclusive) in the order asked,
 * ties broken by id. Every page costs the same (never OFFSET): a set filter with few members
 * drives the page from them; otherwise the sort key's index is walked, each model tested,
 * until the page is full. Fetches one row more than `limit` to know whether another page follows.
 */
export async function fetchModelPage(
  database: VaultDatabase,
  query: ModelQuery,
  limit: number,
  after?: CursorPosition,
): Promise<{ rows: ModelRow[]; more: boolean }> {
  const rows = await (await modelPageQuery(database, query, limit + 1, 'all', after)).execute()
  return { rows: rows.slice(0, limit), more: rows.length > limit }
}

/**
 * The statement of a page: at most `limit` models after `after`, in order, with `columns` (or
 * every column) and `sort_value`. Built after reading the sizes of the filters that are sets,
 * which decide its plan.
 */
export async function modelPageQuery<C extends ModelColumn>(
  database: VaultDatabase,
  query: ModelQuery,
  limit: number,
  columns: readonly C[] | 'all',
  after?: CursorPosition,
): Promise<SelectQueryBuilder<Database, 'models', PageRow<C>>> {
  const { db, dialect } = database
  const sortValue = sortExpression(dialect, query.sort)
  checkCursorFits(query.sort, after)
  const ranges = dateRanges(query.filters)
  // A range of the date the sort walks bounds the walk itself; another date's range may be read first.
  const offSort = (range: DateRange) => range.column !== sortColumns[query.sort]
  const bound = hasMemberSets(query.filters) || ranges.some(offSort) ? driveBound(limit, await modelCount(database)) : 0
  const sets = await memberSets(database, query.filters, bound)
  let qb = db.selectFrom('models')
  let driver: MemberSet | undefined
  for (const set of sets) {
    if (set.size === undefined || set.size >= bound) continue
    if (driver === undefined || set.size < (driver.size ?? Number.POSITIVE_INFINITY)) driver = set
  }
  for (const set of sets) {
    // A set whose size nobody knows is left to the database's planner to drive or test.
    qb = set === driver || set.size === undefined ? qb.where(set.listed) : qb.where(set.holds)
  }
  for (const range of ranges) {
    // A wide range of another date is tested along the sort order instead of read through its index.
    const tested = offSort(range) && (await modelsInRange(database, range, bound)) >= bound
    qb = qb.where(inRange(tested ? dialect.unindexed(range.column) : sql.ref(`models.${range.column}`), range))
  }
  const direction = sortDirection(query.order)
  const filtered = gcodeFilter(qb, query.filters)
  const rest =
    after === undefined
      ? filtered
      : filtered.where(
          sql<boolean>`(${sortValue}, models.id) ${sql.raw(query.order === 'asc' ? '>' : '<')} (${after.value}, ${after.id})`,
        )
  type Page = SelectQueryBuilder<Database, 'models', PageRow<C>>
  // Typed loosely here and as a page at the end: `select` cannot type a column list chosen by the caller.
  const withColumns = (from: SelectQueryBuilder<Database, 'models', object>) =>
    (columns === 'all'
      ? from.selectAll('models')
      : from.select(columns.map((column) => `models.${column}` as const))) as SelectQueryBuilder<
      Database,
      'models',
      object
    >
  if (!driver && dialect.defersRowReads) {
    // SQLite tests what the sort index holds (the dates, the G-code count: migration 0015) before it
    // reads a walked model's row, so one statement walks and reads the page.
    return withColumns(rest)
      .select(sortValue.as('sort_value'))
      .orderBy(sql`${sortValue} ${direction}`)
      .orderBy(sql`models.id ${direction}`)
      .limit(limit) as unknown as Page
  }
  if (!driver) {
    // The walk reads only what the sort index holds and the set filters' indexes (on PostgreSQL an
    // index-only scan); the page's rows are read after it, by id.
    const walked = rest
      .select(['models.id', sortValue.as('sort_value')])
      .orderBy(sql`${sortValue} ${direction}`)
      .orderBy(sql`models.id ${direction}`)
      .limit(limit)
    const joined = db.selectFrom(walked.as('walked')).innerJoin('models', 'models.id', 'walked.id')
    return withColumns(joined as unknown as SelectQueryBuilder<Database, 'models', object>)
      .select(sql.ref('walked.sort_value').as('sort_value'))
      .orderBy(sql`walked.sort_value ${direction}`)
      .orderBy(sql`walked.id ${direction}`) as unknown as Page
  }
  // Every candidate first, then the page of them: a planner told only "the first rows in this
  // order" may still walk the sort index (PostgreSQL did, 0.9 s for a rare word at a million models).
  return db
    .with(
      (cte) => cte('candidates').materialized(),
      () => withColumns(rest).select(sortValue.as('sort_value')),
    )
    .selectFrom('candidates')
    .selectAll()
    .orderBy(sql`sort_value ${direction}`)
    .orderBy(sql`id ${direction}`)
    .limit(limit) as unknown as Page
}

/** A cursor of a name or date sort does not page a size sort, nor the reverse: 400 `invalid_cursor`. */
export function checkCursorFits(sort: SortKey, after: CursorPosition | undefined): void {
  if (after && (typeof after.value === 'number') !== (sort === 'size'))
    throw invalidCursor('The cursor does not fit this sort.')
}

export const sortDirection = (order: SortOrder) => (order === 'asc' ? sql.raw('asc') : sql.raw('desc'))

/**
 * No fewer than the models matching every term when that is under `bound`, else `bound`; undefined
 * when the index cannot count. The rarest term bounds them all, so each term is counted only up to
 * the fewest so far.
 */
async function searchSize(database: VaultDatabase, terms: string[], bound: number): Promise<number | undefined> {
  let fewest = bound
  for (const term of terms) {
    const counted = await database.dialect.search.countUpTo(database.db, term, fewest)
    if (counted === undefined) return undefined
    fewest = Math.min(fewest, counted)
  }
  return fewest
}

const nothing = sql<SqlBool>`1 = 0`

/** No filter narrows the listing: its page statement then depends on the sort, order and cursor alone. */
export const isUnfiltered = (filters: ModelFilters) =>
  !hasMemberSets(filters) && dateRanges(filters).length === 0 && filters.hasGcode === undefined

const hasMemberSets = (filters: ModelFilters) =>
  searchTerms(filters.q ?? '').length > 0 ||
  (filters.tags ?? []).length > 0 ||
  filters.collection !== undefined ||
  (filters.formats ?? []).length > 0

/**
 * The filters that are sets of models, with their sizes from the counters kept on write
 * (library_counts) and the search index's counts up to `bound`.
 */
async function memberSets(database: VaultDatabase, filters: ModelFilters, bound: number): Promise<MemberSet[]> {
  const { db, dialect } = database
  const sets: MemberSet[] = []
  const terms = searchTerms(filters.q ?? '')
  if (terms.length > 0)
    sets.push({
      size: await searchSize(database, terms, bound),
      listed: sql<SqlBool>`models.id in (${dialect.search.members(terms)})`,
      holds: dialect.search.holds(terms),
    })
  const tagKeys = [...new Set((filters.tags ?? []).map(tagKey))]
  if (tagKeys.length > 0) {
    const tags = await db
      .selectFrom('tags')
      .leftJoin(countsOf(db, 'tag').as('counts'), 'counts.key', 'tags.id')
      .select(['tags.id', 'counts.models'])
      .where('tags.name_key', 'in', tagKeys)
      .execute()
    // A tag nobody has: the empty set, which drives the page to nothing.
    if (tags.length < tagKeys.length) sets.push({ size: 0, listed: nothing, holds: nothing })
    for (const tag of tags)
      sets.push({
        size: Number(tag.models ?? 0),
        listed: (eb) =>
          eb(
            'models.id',
            'in',
            eb.selectFrom('model_tags').select('model_tags.model_id').where('model_tags.tag_id', '=', tag.id),
          ),
        holds: ({ exists, selectFrom }) =>
          exists(
            selectFrom('model_tags')
              .select(sql`1`.as('one'))
              .whereRef('model_tags.model_id', '=', 'models.id')
              .where('model_tags.tag_id', '=', tag.id),
          ),
      })
  }
  if (filters.collection !== undefined) {
    const collections = filters.collectionDescendants
      ? await collectionSubtree(db, filters.collection)
      : [filters.collection]
    const counted =
      collections.length > 0 ? await countsOf(db, 'collection').having('parts.key', 'in', collections).execute() : []
    sets.push({
      // A model in several of the collections counts once per collection: no fewer than it holds.
      size: counted.reduce((sum, row) => sum + Number(row.models), 0),
      listed:
        collections.length === 0
          ? nothing
          : (eb) =>
              eb(
                'models.id',
                'in',
                eb
                  .selectFrom('collection_models')
                  .select('collection_models.model_id')
                  .where('collection_models.collection_id', 'in', collections),
              ),
      holds:
        collections.length === 0
          ? nothing
          : ({ exists, selectFrom }) =>
              exists(
                selectFrom('collection_models')
                  .select(sql`1`.as('one'))
                  .where('collection_models.collection_id', 'in', collections)
                  .whereRef('collection_models.model_id', '=', 'models.id'),
              ),
    })
  }
  if (filters.formats && filters.formats.length > 0) {
    const formats = [...new Set(filters.formats)]
    const counted = await countsOf(db, 'format').having('parts.key', 'in', formats).execute()
    sets.push({
      // Models with any of the formats: no more than the sum of the models with each.
      size: counted.reduce((sum, row) => sum + Number(row.models), 0),
      listed: (eb) =>
        eb('models.id', 'in', eb.selectFrom('files').select('files.model_id').where('files.format', 'in', formats)),
      holds: ({ exists, selectFrom }) =>
        exists(
          selectFrom('files')
            .select(sql`1`.as('one'))
            .whereRef('files.model_id', '=', 'models.id')
            .where('files.format', 'in', formats),
        ),
    })
  }
  return sets
}

/** Models in the library, from the counters kept on write. */
async function modelCount(database: VaultDatabase): Promise<number> {
  const counted = await countsOf(database.db, 'models').executeTakeFirst()
  return Number(counted?.models ?? 0)
}

/**
 * Whether the model has a G-code file: a test on each model (both answers are common), on the
 * count kept on its row and in every sort index (migration 0015).
 */
function gcodeFilter<O>(qb: SelectQueryBuilder<Database, 'models', O>, filters: ModelFilters) {
  if (filters.hasGcode === undefined) return qb
  return qb.where('models.gcode_file_count', filters.hasGcode ? '>' : '=', 0)
}

type DateColumn = 'created_at' | 'updated_at'
/** A date filter: `from` inclusive, `to` exclusive, at least one of them. */
interface DateRange {
  column: DateColumn
  from: string | undefined
  to: string | undefined
}

/** The date column each sort walks, where a range on it bounds the walk itself. */
const sortColumns: Record<SortKey, DateColumn | undefined> = {
  name: undefined,
  created: 'created_at',
  updated: 'updated_at',
  size: undefined,
}

function dateRanges(filters: ModelFilters): DateRange[] {
  const ranges: DateRange[] = [
    { column: 'created_at', from: filters.createdFrom, to: filters.createdTo },
    { column: 'updated_at', from: filters.updatedFrom, to: filters.updatedTo },
  ]
  return ranges.filter((range) => range.from !== undefined || range.to !== undefined)
}

function inRange(column: RawBuilder<string> | ReturnType<typeof sql.ref>, range: DateRange) {
  const conditions = [
    ...(range.from === undefined ? [] : [sql<SqlBool>`${column} >= ${range.from}`]),
    ...(range.to === undefined ? [] : [sql<SqlBool>`${column} < ${range.to}`]),
  ]
  return sql<SqlBool>`${sql.join(conditions, sql` and `)}`
}

/** Models in the range, counted through its index up to `cap`. */
async function modelsInRange(database: VaultDatabase, range: DateRange, cap: number): Promise<number> {
  const within = database.db
    .selectFrom('models')
    .select(sql`1`.as('one'))
    .where(inRange(sql.ref(`models.${range.column}`), range))
    .limit(cap)
  const counted = await database.db
    .selectFrom(within.as('within'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(counted.n)
}
