import SQLite from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { withStatementCache } from './statement-cache.js'

const openMemory = () => {
  const sqlite = new SQLite(':memory:')
  sqlite.exec('create table t (a integer); insert into t values (1), (2), (3)')
  return sqlite
}

describe('withStatementCache', () => {
  it('hands out the same prepared statement for the same SQL', () => {
    const cached = withStatementCache(openMemory())
    const first = cached.prepare('select a from t')
    expect(cached.prepare('select a from t')).toBe(first)
    expect(cached.prepare('select a from t where a > ?')).not.toBe(first)
  })

  it('gives a fresh statement while the kept one is still being iterated, and both read everything', () => {
    const cached = withStatementCache(openMemory())
    const streaming = cached.prepare('select a from t order by a').iterate([])
    expect(streaming.next().value).toEqual({ a: 1 })
    const beside = cached.prepare('select a from t order by a')
    expect(beside.all([])).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }])
    expect([...streaming]).toEqual([{ a: 2 }, { a: 3 }])
  })

  it('keeps at most `limit` statements, dropping the least recently used', () => {
    const cached = withStatementCache(openMemory(), 2)
    const one = cached.prepare('select 1')
    const two = cached.prepare('select 2')
    expect(cached.prepare('select 1')).toBe(one) // now "select 2" is the oldest
    cached.prepare('select 3')
    expect(cached.prepare('select 1')).toBe(one)
    expect(cached.prepare('select 2')).not.toBe(two)
  })

  it('a kept statement sees a schema changed after it was prepared', () => {
    const sqlite = openMemory()
    const cached = withStatementCache(sqlite)
    expect(cached.prepare('select * from t where a = ?').all([1])).toEqual([{ a: 1 }])
    sqlite.exec("alter table t add column b text default 'x'")
    expect(cached.prepare('select * from t where a = ?').all([1])).toEqual([{ a: 1, b: 'x' }])
  })
})
