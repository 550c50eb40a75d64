import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { describe, expect, it } from 'vitest'
import { withDurableCommits } from './durable-commits.js'

interface Tables {
  t: { a: number }
}

/** A Kysely handle whose WAL syncs the test lets finish by hand. */
function heldDatabase() {
  const sqlite = new SQLite(':memory:')
  sqlite.exec('create table t (a integer)')
  const syncs: (() => void)[] = []
  const dialect = new SqliteDialect({ database: sqlite })
  const db = new Kysely<Tables>({
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createIntrospector: (handle) => dialect.createIntrospector(handle),
      createDriver: () =>
        withDurableCommits(dialect.createDriver(), sqlite, () => new Promise<void>((end) => syncs.push(end))),
    },
  })
  return { db, syncs }
}

/** Whether `promise` has settled once pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true),
  )
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('withDurableCommits', () => {
  it('resolves a write, alone or in a transaction, only after the WAL sync that follows its commit', async () => {
    const { db, syncs } = heldDatabase()
    const insert = db.insertInto('t').values({ a: 1 }).execute()
    expect(await settled(insert)).toBe(false)
    expect(syncs).toHaveLength(1)
    syncs[0]?.()
    await insert

    const transaction = db.transaction().execute((trx) => trx.insertInto('t').values({ a: 2 }).execute())
    expect(await settled(transaction)).toBe(false)
    syncs[1]?.()
    await transaction
    expect(syncs).toHaveLength(2)
  })

  it('lets other queries use the connection while a write waits for its sync, and reads never wait', async () => {
    const { db, syncs } = heldDatabase()
    const insert = db.insertInto('t').values({ a: 1 }).execute()
    expect(await settled(insert)).toBe(false)
    // The connection was released before the sync: a read runs, sees the commit and waits for nothing.
    expect(await db.selectFrom('t').select('a').execute()).toEqual([{ a: 1 }])
    expect(syncs).toHaveLength(1)
    syncs[0]?.()
    await insert
  })
})
