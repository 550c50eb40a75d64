import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { lastRestoreMarkName, maintenanceLockName, takeMaintenanceLock } from '../src/core/runtime/maintenance-lock.js'
import { adminEnv } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/**
 * The rule that keeps a restore from dropping a write it let through, at the database port: a
 * write commits only in a transaction that found no live restore yet to swap, and a restore takes
 * its lock only once the writes under way have committed.
 */
let vault: TestVault

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
})
afterAll(() => vault?.close())
afterEach(async () => {
  await vault.deps.database.db
    .deleteFrom('locks')
    .where('name', 'in', [maintenanceLockName, lastRestoreMarkName])
    .execute()
})

const newTag = (name: string) => ({
  id: crypto.randomUUID(),
  name,
  name_key: name.toLowerCase(),
  created_at: new Date().toISOString(),
})
const tagNamed = (name: string) =>
  vault.deps.database.db.selectFrom('tags').select('name').where('name', '=', name).executeTakeFirst()

/** The lock row of a restore another host runs (its lease live), as its process wrote it. */
async function restoreRunningElsewhere(): Promise<string> {
  const owner = crypto.randomUUID()
  await vault.deps.database.db
    .insertInto('locks')
    .values({
      name: maintenanceLockName,
      owner,
      purpose: 'restore',
      expires_at: new Date(Date.now() + 600_000).toISOString(),
      host_id: 'another-host/boot/pid:[1]',
      pid: 2 ** 22 + 1,
      instance_id: crypto.randomUUID(),
    })
    .execute()
  return owner
}

describe('writes while a restore holds its lock', () => {
  it('fail with 503 restore_in_progress until its swap, and nothing of their transaction commits', async () => {
    const { db } = vault.deps.database
    const owner = await restoreRunningElsewhere()
    await expect(db.insertInto('tags').values(newTag('alone')).execute()).rejects.toMatchObject({
      status: 503,
      code: 'restore_in_progress',
      headers: { 'Retry-After': '10' },
    })
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.selectFrom('tags').selectAll().execute()
        await trx.insertInto('tags').values(newTag('first')).execute()
        await trx.insertInto('tags').values(newTag('second')).execute()
      }),
    ).rejects.toMatchObject({ status: 503, code: 'restore_in_progress' })
    expect([await tagNamed('alone'), await tagNamed('first'), await tagNamed('second')]).toEqual([
      undefined,
      undefined,
      undefined,
    ])
    // The lock table is the restore's own (its progress goes there).
    await db.updateTable('locks').set({ progress: null }).where('owner', '=', owner).execute()

    // The swap leaves a mark with the restore's token: writes land in the restored data from then on.
    await db
      .insertInto('locks')
      .values({ name: lastRestoreMarkName, owner, purpose: 'restore', expires_at: new Date().toISOString() })
      .execute()
    await db.insertInto('tags').values(newTag('after the swap')).execute()
    expect(await tagNamed('after the swap')).toEqual({ name: 'after the swap' })
  })

  it('pass once the restore that held the lock is gone (its lease lapsed)', async () => {
    const { db } = vault.deps.database
    const owner = await restoreRunningElsewhere()
    await db
      .updateTable('locks')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('owner', '=', owner)
      .execute()
    await db.insertInto('tags').values(newTag('after a dead restore')).execute()
    expect(await tagNamed('after a dead restore')).toEqual({ name: 'after a dead restore' })
  })
})

describe('a restore taking its lock', () => {
  /** Whether a restore's lock-taking waits in the database (PostgreSQL: for the advisory lock). */
  const restoreWaits = async () =>
    inject('databaseKind') === 'sqlite'
      ? true // One connection: the restore's statements queue behind the open transaction.
      : Number(
          (
            await sql<{
              n: number
            }>`select count(*) as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`.execute(
              vault.deps.database.db,
            )
          ).rows[0]?.n,
        ) > 0

  it('waits for a write under way, which commits before the lock exists', async () => {
    let wrote!: () => void
    let finish!: () => void
    const written = new Promise<void>((resolve) => (wrote = resolve))
    const finished = new Promise<void>((resolve) => (finish = resolve))
    const writing = vault.deps.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('tags').values(newTag('under way')).execute()
      wrote()
      await finished
    })
    await written
    let taken = false
    const taking = takeMaintenanceLock(vault.deps, 'restore').then((lock) => {
      taken = true
      return lock
    })
    while (!taken && !(await restoreWaits()));
    expect(taken, 'the restore took its lock while a write was under way').toBe(false)
    finish()
    await writing
    const { held } = await taking
    expect(await tagNamed('under way')).toEqual({ name: 'under way' })
    await held.release()
  })
})
