import { CompiledQuery } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seededRandom } from '../scripts/seeded-random.js'
import type { VaultDatabase } from '../src/core/db/database.js'
import { migrateToLatest } from '../src/core/db/migrate.js'
import type { CursorPosition } from '../src/core/library/cursor.js'
import {
  driveBound,
  fetchModelPage,
  type ModelFilters,
  type ModelQuery,
  modelPageQuery,
} from '../src/core/library/model-query.js'
import { summaryPage } from '../src/core/library/page-statements.js'
import { summaryColumns } from '../src/core/library/records.js'
import { refreshModel } from '../src/core/library/refresh-model.js'
import { openEmptyDatabase } from './support/empty-database.js'
import { bareFileRow } from './support/file-rows.js'

/**
 * A page is driven from a small set filter's members or found by walking the sort key's index
 * (src/core/library/model-query.ts). Whichever plan runs, every page must hold the same models
 * in the same order: here each query is paged through to its end and compared with the answer
 * computed in JavaScript, over a library whose words and tags range from rare (driving) to
 * common (walked).
 */

const modelCount = 240
/** Pages of 3 (4 rows fetched): sets under √(4 × 240) ≈ 31 models drive, larger ones are walked. */
const pageSize = 3
const random = seededRandom(18)
// 'abravo' holds 'bravo' inside a word, which a search for 'bravo' must not match.
const words = ['alpha', 'bravo', 'abravo', 'delta', 'echo', 'foxtrot']
/** How often each word is in a name: from most models down to a handful. */
const wordShare = [0.6, 0.35, 0.2, 0.08, 0.04, 0.02]
const tags = ['tagcommon', 'tagoften', 'tagsome', 'tagfew', 'tagrare']
const tagShare = [0.5, 0.3, 0.12, 0.06, 0.02]
const formats = ['stl', '3mf', 'gcode', 'step']

interface Model {
  id: string
  name: string
  createdAt: string
  updatedAt: string
  size: number
  tags: string[]
  formats: string[]
  collection: boolean
}

let database: VaultDatabase
let dispose: () => Promise<void>
const library: Model[] = []
const collectionId = crypto.randomUUID()

beforeAll(async () => {
  ;({ database, dispose } = await openEmptyDatabase())
  const { db } = database
  await migrateToLatest(db)
  const at = '2026-11-01T00:00:00.000Z'
  const tagIds = new Map(tags.map((tag) => [tag, crypto.randomUUID()]))
  await db
    .insertInto('tags')
    .values(tags.map((tag) => ({ id: tagIds.get(tag)!, name: tag, name_key: tag, created_at: at })))
    .execute()
  await db
    .insertInto('collections')
    .values({ id: collectionId, name: 'Shelf', name_key: 'shelf', description: '', created_at: at, updated_at: at })
    .execute()
  for (let i = 0; i < modelCount; i++) {
    const picked = words.filter((_, w) => random() < wordShare[w]!)
    // Some names repeat exactly, so ties on the sort key are broken by id.
    const name = i % 17 === 0 ? 'Zulu' : `Zulu ${picked.join(' ')} ${i % 23}`
    // Few distinct instants: many ties on the dates too.
    const createdAt = new Date(Date.UTC(2026, 0, 1 + Math.floor(random() * 30))).toISOString()
    const updatedAt = new Date(Date.UTC(2026, 1, 1 + Math.floor(random() * 30))).toISOString()
    const modelFormats = formats.filter(() => random() < 0.4)
    library.push({
      id: crypto.randomUUID(),
      name,
      createdAt,
      updatedAt,
      size: 0,
      tags: tags.filter((_, t) => random() < tagShare[t]!),
      formats: modelFormats,
      collection: random() < 0.1,
    })
  }
  await db.transaction().execute(async (trx) => {
    for (const model of library) {
      await trx
        .insertInto('models')
        .values({
          id: model.id,
          name: model.name,
          created_at: model.createdAt,
          updated_at: model.updatedAt,
          thumbnail_sha256: null,
          thumbnail_content_type: null,
        })
        .execute()
      for (const [f, format] of model.formats.entries()) {
        const id = crypto.randomUUID()
        const size = 1000 + Math.floor(random() * 5) * 100 + f
        model.size += size
        await trx
          .insertInto('files')
          .values(bareFileRow({ id, model: model.id, name: `${f}.${format}`, format, size, createdAt: at }))
          .execute()
      }
      for (const tag of model.tags)
        await trx
          .insertInto('model_tags')
          .values({ model_id: model.id, tag_id: tagIds.get(tag)! })
          .execute()
      if (model.collection)
        await trx
          .insertInto('collection_models')
          .values({ collection_id: collectionId, model_id: model.id, added_at: at })
          .execute()
      // As ingest does: file count and total size, and the search document.
      await refreshModel(trx, database.dialect.search, model.id, model.updatedAt)
    }
  })
}, 120_000)
afterAll(() => dispose())

/** The query's models in its order, computed from the generated library. */
function expected(query: ModelQuery): string[] {
  const f = query.filters
  const terms = (f.q ?? '').split(' ').filter(Boolean)
  const nameWords = (model: Model) => model.name.toLowerCase().split(' ')
  const matching = library.filter(
    (model) =>
      terms.every((term) => nameWords(model).some((word) => word.startsWith(term))) &&
      (f.tags ?? []).every((tag) => model.tags.includes(tag)) &&
      (f.collection === undefined || model.collection) &&
      (f.formats === undefined || model.formats.some((format) => f.formats!.includes(format))) &&
      (f.hasGcode === undefined || model.formats.includes('gcode') === f.hasGcode) &&
      (f.createdFrom === undefined || model.createdAt >= f.createdFrom) &&
      (f.createdTo === undefined || model.createdAt < f.createdTo) &&
      (f.updatedFrom === undefined || model.updatedAt >= f.updatedFrom) &&
      (f.updatedTo === undefined || model.updatedAt < f.updatedTo),
  )
  const key = (model: Model): string | number =>
    query.sort === 'name'
      ? model.name.toLowerCase()
      : query.sort === 'created'
        ? model.createdAt
        : query.sort === 'updated'
          ? model.updatedAt
          : model.size
  const sign = query.order === 'asc' ? 1 : -1
  return matching
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)]
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign
      return (a.id < b.id ? -1 : 1) * sign
    })
    .map((model) => model.id)
}

/** Every page of the query, following the keyset from each page's last row. */
async function pageThrough(query: ModelQuery): Promise<string[]> {
  const ids: string[] = []
  let after: CursorPosition | undefined
  for (let pages = 0; pages < modelCount; pages++) {
    const { rows, more } = await fetchModelPage(database, query, pageSize, after)
    ids.push(...rows.map((row) => row.id))
    if (!more) return ids
    const last = rows.at(-1)!
    after = { value: last.sort_value, id: last.id }
  }
  throw new Error('the pages never ended')
}

const count = (filters: ModelFilters) => expected({ filters, sort: 'updated', order: 'desc' }).length

describe('a page of models, driven by a small set or walked along the sort index', () => {
  it('the library straddles both plans: rare words and tags drive, common ones are walked', () => {
    const bound = driveBound(pageSize + 1, modelCount)
    expect(count({ tags: ['tagrare'] })).toBeLessThan(bound)
    expect(count({ tags: ['tagcommon'] })).toBeGreaterThan(bound)
    expect(count({ q: 'foxtrot' })).toBeLessThan(bound)
    expect(count({ q: 'alpha' })).toBeGreaterThan(bound)
    expect(count({ createdFrom: '2026-01-05T00:00:00.000Z', createdTo: '2026-01-25T00:00:00.000Z' })).toBeGreaterThan(
      bound,
    )
    expect(count({ createdFrom: '2026-01-29T00:00:00.000Z' })).toBeLessThan(bound)
    expect(count({ q: 'foxtrot', tags: ['tagrare'] })).toBeLessThan(count({ tags: ['tagrare'] }))
  })

  const queries: ModelFilters[] = [
    { q: 'alpha' },
    { q: 'foxtrot' },
    { q: 'bravo' },
    { q: 'alp bra' },
    { q: 'ech' },
    { tags: ['tagcommon'] },
    { tags: ['tagrare'] },
    { tags: ['tagcommon', 'tagfew'] },
    { q: 'alpha', tags: ['tagrare'] },
    { q: 'foxtrot', tags: ['tagcommon'] },
    { q: 'delta', tags: ['tagsome'], formats: ['stl'] },
    { collection: collectionId },
    { collection: collectionId, q: 'alpha' },
    { formats: ['step'] },
    { formats: ['stl', 'gcode'], tags: ['tagfew'] },
    { hasGcode: false, tags: ['tagoften'] },
    { createdFrom: '2026-01-15T00:00:00.000Z', q: 'bravo' },
    // A wide range of a date the sort does not walk is tested model by model, a narrow one read from its index.
    { createdFrom: '2026-01-05T00:00:00.000Z', createdTo: '2026-01-25T00:00:00.000Z' },
    { createdFrom: '2026-01-29T00:00:00.000Z' },
    { updatedFrom: '2026-02-27T00:00:00.000Z', tags: ['tagoften'] },
    { updatedTo: '2026-02-10T00:00:00.000Z', createdTo: '2026-01-10T00:00:00.000Z' },
    { hasGcode: false },
    { hasGcode: true, createdFrom: '2026-01-05T00:00:00.000Z', createdTo: '2026-01-25T00:00:00.000Z' },
  ]
  for (const sort of ['updated', 'name', 'size', 'created'] as const) {
    for (const order of ['asc', 'desc'] as const) {
      it(`every page in order, sorted by ${sort} ${order}, for every filter combination`, async () => {
        for (const filters of queries) {
          const query = { filters, sort, order }
          expect(await pageThrough(query), JSON.stringify(filters)).toEqual(expected(query))
        }
      })
    }
  }

  it('a tag that does not exist matches nothing', async () => {
    expect(await pageThrough({ filters: { tags: ['tagrare', 'nosuchtag'] }, sort: 'name', order: 'asc' })).toEqual([])
  })
})

describe('the summary pages of the listing, whose unfiltered statements are compiled once', () => {
  /** Every page through `summaryPage`, `size` rows each: the request's values bound into kept statements. */
  async function summariesThrough(query: ModelQuery, size: number): Promise<string[]> {
    const ids: string[] = []
    let after: CursorPosition | undefined
    for (let pages = 0; pages < modelCount; pages++) {
      const rows = await summaryPage(database, query, size + 1, after)
      ids.push(...rows.slice(0, size).map((row) => row.id))
      if (rows.length <= size) return ids
      const last = rows[size - 1]!
      after = { value: last.sort_value, id: last.id }
    }
    throw new Error('the pages never ended')
  }

  for (const sort of ['updated', 'name', 'size', 'created'] as const) {
    it(`pages as a statement built for each page would, sorted by ${sort}, in each order and page size`, async () => {
      for (const order of ['asc', 'desc'] as const) {
        const query = { filters: {}, sort, order }
        // Twice each: the second pass runs the kept statements.
        for (const size of [pageSize, 7, pageSize, 7, modelCount + 1])
          expect(await summariesThrough(query, size), `${order} by ${size}`).toEqual(expected(query))
        // A filtered listing is built per page, and pages the same.
        const filtered = { filters: { tags: ['tagcommon'] }, sort, order }
        expect(await summariesThrough(filtered, 7)).toEqual(expected(filtered))
      }
    })
  }

  it('a cursor of another kind of sort is refused, by the kept statement as by a built one', async () => {
    const dateCursor = { value: '2026-02-01T00:00:00.000Z', id: library[0]!.id }
    const sizeCursor = { value: 1200, id: library[0]!.id }
    const bySize = { filters: {}, sort: 'size', order: 'asc' } as const
    const byName = { filters: {}, sort: 'name', order: 'asc' } as const
    for (let pass = 0; pass < 2; pass++) {
      await expect(summaryPage(database, bySize, 4, dateCursor)).rejects.toMatchObject({
        status: 400,
        code: 'invalid_cursor',
      })
      await expect(summaryPage(database, byName, 4, sizeCursor)).rejects.toMatchObject({
        status: 400,
        code: 'invalid_cursor',
      })
    }
  })
})

/**
 * The database's plan for the first page of `query`, one line per step. PostgreSQL is told to
 * avoid whole-table scans and sorts, which a library this small would cost less: what is
 * asserted is that an index can serve the walk without reading the models' rows.
 */
async function planOf(query: ModelQuery): Promise<string> {
  const compiled = (await modelPageQuery(database, query, pageSize + 1, summaryColumns)).compile()
  if (database.kind === 'sqlite') {
    const explain = (prefix: string) => CompiledQuery.raw(`${prefix} ${compiled.sql}`, [...compiled.parameters])
    const plan = await database.db.executeQuery<{ detail: string }>(explain('explain query plan'))
    // The program too: whether a walked model's row is read before or after the index's tests is in its opcodes.
    const program = await database.db.executeQuery<{ opcode: string }>(explain('explain'))
    return `${plan.rows.map((row) => row.detail).join('\n')}\nprogram: ${program.rows.map((row) => row.opcode).join(' ')}`
  }
  return database.db.transaction().execute(async (trx) => {
    for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'])
      await trx.executeQuery(CompiledQuery.raw(`set local ${setting} = off`))
    const explained = CompiledQuery.raw(`explain (costs off) ${compiled.sql}`, [...compiled.parameters])
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(explained)
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  })
}

/**
 * The sort index walked and tested without reading the rows of the models that fail: SQLite's
 * deferred seek (a row is read once the tests on the index have passed), PostgreSQL's index-only scan.
 */
const indexOnly = (index: string) =>
  database.kind === 'sqlite'
    ? new RegExp(`USING (COVERING )?INDEX ${index}\\b[\\s\\S]*program: .*\\bDeferredSeek\\b`)
    : new RegExp(`Index Only Scan (Backward )?using ${index}`)

describe('a walk along the sort index tests the filters kept on the model inside the index', () => {
  beforeAll(async () => {
    // Index-only scans read the visibility map that vacuum keeps.
    if (database.kind === 'postgres') await database.db.executeQuery(CompiledQuery.raw('vacuum analyze models'))
  })

  it('models without G-code, largest first: the size index alone, no file looked up', async () => {
    const plan = await planOf({ filters: { hasGcode: false }, sort: 'size', order: 'desc' })
    expect(plan).toMatch(indexOnly('models_by_size'))
    expect(plan).not.toMatch(/files/)
  })

  it('a wide range of creation dates, last updated first: the update index alone', async () => {
    const filters = { createdFrom: '2026-01-05T00:00:00.000Z', createdTo: '2026-01-25T00:00:00.000Z' }
    expect(count(filters)).toBeGreaterThan(driveBound(pageSize + 1, modelCount))
    const plan = await planOf({ filters, sort: 'updated', order: 'desc' })
    expect(plan).toMatch(indexOnly('models_by_updated'))
    expect(plan).not.toMatch(/models_by_created/)
  })

  it('every session starts with the settings the adapter makes (PostgreSQL: no parallel workers)', async () => {
    // Several sessions on PostgreSQL: the settings are made on each new connection of the pool, not once.
    const settingsOf = (names: readonly string[]) =>
      database.db.connection().execute(async (session) => {
        const values: Record<string, string> = {}
        for (const name of names) {
          const sqlText = database.kind === 'sqlite' ? `pragma ${name}` : `show ${name}`
          const { rows } = await session.executeQuery<Record<string, unknown>>(CompiledQuery.raw(sqlText))
          values[name] = String(Object.values(rows[0] ?? {})[0])
        }
        return values
      })
    if (database.kind === 'sqlite') {
      // One connection, set up when it opens: references checked, writers wait for the lock.
      expect(await settingsOf(['foreign_keys', 'busy_timeout'])).toEqual({ foreign_keys: '1', busy_timeout: '5000' })
    } else {
      const names = ['max_parallel_workers_per_gather']
      const sessions = await Promise.all(Array.from({ length: 3 }, () => settingsOf(names)))
      expect(sessions).toEqual(Array.from({ length: 3 }, () => ({ max_parallel_workers_per_gather: '0' })))
    }
  })

  it('a common tag with G-code, oldest first: the creation index walked, each model looked up in the tag links only', async () => {
    const plan = await planOf({ filters: { tags: ['tagcommon'], hasGcode: true }, sort: 'created', order: 'asc' })
    expect(plan).toMatch(indexOnly('models_by_created'))
    expect(plan).not.toMatch(/files/)
  })
})
