import SQLite from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { withRowObjects } from './row-objects.js'
import { withStatementCache } from './statement-cache.js'

const openMemory = () => {
  const sqlite = new SQLite(':memory:')
  sqlite.exec(`create table t (id integer primary key, name text, size real, data blob, note text);
    insert into t values (1, 'gyroid', 1.5, x'00ff', null), (2, 'benchy', null, null, 'ü ✓')`)
  return sqlite
}

/** What better-sqlite3 itself answers, keys in order. */
const ownRows = (sqlite: SQLite.Database, sql: string, parameters: unknown[] = []) =>
  sqlite.prepare(sql).all(parameters) as Record<string, unknown>[]

const keysOf = (rows: unknown[]) => rows.map((row) => Object.keys(row as object))

describe('withRowObjects', () => {
  it('answers the objects better-sqlite3 builds: same keys in the same order, nulls, reals and blobs untouched', () => {
    const sqlite = openMemory()
    const sql = 'select * from t where id >= ? order by id'
    const rows = withRowObjects(sqlite.prepare(sql), { current: 0 }).all([1])
    expect(rows).toEqual(ownRows(sqlite, sql, [1]))
    expect(keysOf(rows)).toEqual([
      ['id', 'name', 'size', 'data', 'note'],
      ['id', 'name', 'size', 'data', 'note'],
    ])
    expect((rows[0] as { data: Buffer }).data).toEqual(Buffer.from([0, 255]))
    expect((rows[1] as { size: unknown }).size).toBeNull()
  })

  it('keeps the last of duplicate column names at the first one’s place, as better-sqlite3 does', () => {
    const sqlite = openMemory()
    const sql = 'select id as a, name, note as a, size as a from t order by id'
    const rows = withRowObjects(sqlite.prepare(sql), { current: 0 }).all([])
    expect(rows).toEqual([
      { a: 1.5, name: 'gyroid' },
      { a: null, name: 'benchy' },
    ])
    expect(keysOf(rows)).toEqual(keysOf(ownRows(sqlite, sql)))
  })

  it('makes a column named __proto__ an own property and leaves the prototype alone', () => {
    const sqlite = openMemory()
    const [row] = withRowObjects(sqlite.prepare('select name as __proto__, id from t where id = 1'), {
      current: 0,
    }).all([]) as Record<string, unknown>[]
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype)
    expect(Object.keys(row as object)).toEqual(['__proto__', 'id'])
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('gyroid')
  })

  it('passes 64-bit integers through as bigints when the database reads them so', () => {
    const sqlite = openMemory()
    sqlite.defaultSafeIntegers(true)
    const rows = withRowObjects(sqlite.prepare('select id, 9007199254740993 as big from t where id = 1'), {
      current: 0,
    }).all([])
    expect(rows).toEqual([{ id: 1n, big: 9007199254740993n }])
  })

  it('streams objects, is busy while a stream is open and free once the reader stops early', () => {
    const sqlite = openMemory()
    const statement = withRowObjects(sqlite.prepare('select id, name from t order by id'), { current: 0 })
    const stream = statement.iterate([])
    expect(statement.busy).toBe(true)
    expect(stream.next().value).toEqual({ id: 1, name: 'gyroid' })
    stream.return?.()
    expect(statement.busy).toBe(false)
    expect([...statement.iterate([])]).toEqual([
      { id: 1, name: 'gyroid' },
      { id: 2, name: 'benchy' },
    ])
  })

  it('runs writes and answers an empty read with no rows', () => {
    const sqlite = openMemory()
    const schema = { current: 0 }
    expect(withRowObjects(sqlite.prepare('delete from t where id = ?'), schema).run([2]).changes).toBe(1)
    expect(withRowObjects(sqlite.prepare('select * from t where id = 2'), schema).all([])).toEqual([])
    expect(schema.current).toBe(0)
  })
})

describe('row objects under a changed schema (through the statement cache)', () => {
  const sql = 'select * from t where id = 1'

  it('reads the new names after a rename run through the cache, though the width is the same', () => {
    const cached = withStatementCache(openMemory())
    expect(Object.keys(cached.prepare(sql).all([])[0] as object)).toContain('note')
    cached.prepare('alter table t rename column note to remark').run([])
    expect(cached.prepare(sql).all([])).toEqual([
      { id: 1, name: 'gyroid', size: 1.5, data: Buffer.from([0, 255]), remark: null },
    ])
  })

  it('reads the new names after a restore replaced the tables, once told', () => {
    const sqlite = openMemory()
    const cached = withStatementCache(sqlite)
    cached.prepare(sql).all([])
    sqlite.exec('alter table t rename column note to remark') // as a restore copies other tables in
    cached.schemaReplaced()
    expect(Object.keys(cached.prepare(sql).all([])[0] as object)).toEqual(['id', 'name', 'size', 'data', 'remark'])
  })
})
