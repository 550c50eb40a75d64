import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { snapshotFileNames } from '../../core/db/database.js'
import { openSqliteDatabase } from './sqlite-database.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** An SQLite file of about `mib` MiB: a `beat` table beside filler rows. */
function databaseFile(dir: string, mib: number): string {
  const path = join(dir, 'restored.sqlite')
  const file = new SQLite(path)
  file.exec('create table beat(at integer); create table filler(bytes blob)')
  const insert = file.prepare('insert into filler values (?)')
  file.transaction(() => {
    for (let i = 0; i < mib * 1024; i++) insert.run(Buffer.alloc(1000, i % 251))
  })()
  file.close()
  return path
}

describe('swapping a restored SQLite database in', () => {
  it('lets this process write meanwhile: writes wait for the copy instead of failing on the locked file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-staged-swap-'))
    dirs.push(dir)
    const live = openSqliteDatabase(join(dir, 'vault.sqlite'), { scratchDir: dir })
    await sql`create table beat(at integer)`.execute(live.db)
    const bytes = readFileSync(databaseFile(dir, 16))
    const staged = await live.stageRestore(snapshotFileNames.sqlite, new Blob([bytes]).stream())

    // A lease's renewal, a progress row: writes of this process while the copy runs in steps.
    const failures: string[] = []
    let written = 0
    let swapping = true
    const writer = (async () => {
      while (swapping) {
        await sql`insert into beat values (${Date.now()})`
          .execute(live.db)
          .then(() => written++)
          .catch((error: Error) => failures.push(error.message))
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
    })()
    await staged.swapIn(() => [])
    swapping = false
    await writer

    expect(failures).toEqual([])
    expect(written).toBeGreaterThan(0)
    const filler = await sql<{ n: number }>`select count(*) as n from filler`.execute(live.db)
    expect(filler.rows[0]?.n).toBe(16 * 1024)
    await live.db.destroy()
  }, 30_000)
})
