import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitText } from '../src/core/accounts/login-throttle.js'
import {
  admin,
  adminEnv,
  call,
  createUserAs,
  expectProblem,
  login,
  type Reply,
  signIn,
  uniqueName,
} from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// Behind a trusted proxy, so each test signs in from its own forwarded address and the
// per-address counters of one test do not lock out the next.
const proxiedEnv = { ...adminEnv, VAULT_TRUST_PROXY: 'true' }
let vault: TestVault
let rootToken: string
beforeAll(async () => {
  vault = await startTestVault(proxiedEnv)
  rootToken = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

let lastAddress = 0
/** Headers of a request the proxy forwards from a client address no other test uses. */
const newClient = () => ({ 'X-Forwarded-For': `203.0.113.${++lastAddress}` })

/** A well-formed API key that belongs to nobody: it counts against the client address only. */
const strayKey = `mvk_000000000000_${'A'.repeat(43)}`
const failWithKey = (username: string, headers: Record<string, string>, baseUrl = vault.baseUrl) =>
  login(baseUrl, { username, api_key: strayKey }, headers)
/** A wrong password: counts against the account and the address. */
const failPassword = (username: string, headers: Record<string, string>, baseUrl = vault.baseUrl) =>
  login(baseUrl, { username, password: `wrong-password-${crypto.randomUUID()}` }, headers)

/** `count` failed sign-ins of `username` (wrong passwords, or a stray key), each refused with 401. */
async function failTimes(
  count: number,
  username: string,
  headers: Record<string, string>,
  options: { baseUrl?: string; withKey?: boolean } = {},
) {
  const baseUrl = options.baseUrl ?? vault.baseUrl
  for (let attempt = 1; attempt <= count; attempt++) {
    const reply = options.withKey
      ? await failWithKey(username, headers, baseUrl)
      : await failPassword(username, headers, baseUrl)
    expectProblem(reply, 401, 'invalid_credentials')
  }
}

const failures = (key: string) =>
  vault.deps.database.db.selectFrom('login_failures').selectAll().where('key', '=', key).executeTakeFirst()

/** Rewrites a counter row, to stand in for time passing. */
const setFailures = (key: string, values: { failures?: number; first_failure_at?: string; locked_until?: string }) =>
  vault.deps.database.db.updateTable('login_failures').set(values).where('key', '=', key).execute()
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString()

function expectLocked(reply: Reply, atMostSeconds: number, moreThanSeconds = 0): void {
  expectProblem(reply, 429, 'too_many_attempts')
  expect(reply.body.title).toBe('Too Many Requests')
  const retryAfter = reply.headers.get('retry-after')
  expect(retryAfter).toMatch(/^\d+$/)
  expect(Number(retryAfter)).toBeGreaterThan(moreThanSeconds)
  expect(Number(retryAfter)).toBeLessThanOrEqual(atMostSeconds)
  // The detail says how long in words, the same wait as the header.
  expect(reply.body.detail).toBe(`Too many failed sign-in attempts; try again in ${waitText(Number(retryAfter))}.`)
}

describe('failed sign-ins per account', () => {
  it('the 5th wrong password locks the account for 30 s: the 6th attempt gets 429 with Retry-After, even with the right password', async () => {
    const username = uniqueName('Dora')
    const password = 'doras-real-password'
    await createUserAs(vault.baseUrl, rootToken, { username, password })
    const client = newClient()
    await failTimes(5, username, client)
    const row = await failures(`account:${username.toLowerCase()}`)
    expect(row?.failures).toBe(5)
    const lockedFor = Date.parse(row!.locked_until!) - Date.now()
    expect(lockedFor).toBeGreaterThan(0)
    expect(lockedFor).toBeLessThanOrEqual(30_000)

    expectLocked(await login(vault.baseUrl, { username, password }, client), 30)
    expectLocked(await login(vault.baseUrl, { username, password: 'wrong-password-6' }, client), 30)
    // Attempts during a lock are refused before they are checked, and not counted.
    expect((await failures(`account:${username.toLowerCase()}`))?.failures).toBe(5)
    // The lock is on the account, whatever address asks.
    expectLocked(await login(vault.baseUrl, { username: username.toUpperCase(), password }, newClient()), 30)
  })

  it('an unknown username is counted and locked exactly like a real one, so the lock reveals nothing', async () => {
    const username = uniqueName('ghost')
    const client = newClient()
    await failTimes(5, username, client)
    expectLocked(await login(vault.baseUrl, { username, password: 'wrong-password-6' }, client), 30)
    expect((await failures(`account:${username}`))?.failures).toBe(5)
  })

  it('each failure after a lock has run out doubles the next lock, up to 15 minutes', async () => {
    const username = uniqueName('ghost')
    const key = `account:${username}`
    const client = newClient()
    await failTimes(5, username, client)
    expectLocked(await failPassword(username, client), 30)
    for (const [failuresBefore, lockSeconds] of [
      [5, 60],
      [6, 120],
      [40, 15 * 60],
    ] as const) {
      await setFailures(key, { failures: failuresBefore, locked_until: minutesAgo(0.1) })
      await failTimes(1, username, client)
      expectLocked(await failPassword(username, client), lockSeconds, lockSeconds - 10)
    }
  })

  it('failures older than 15 minutes are forgotten; younger ones still count', async () => {
    const username = uniqueName('ghost')
    const key = `account:${username}`
    const client = newClient()
    await failTimes(4, username, client)
    await setFailures(key, { first_failure_at: minutesAgo(16) })
    await failTimes(1, username, client)
    expect(await failures(key)).toMatchObject({ failures: 1, locked_until: null })

    await failTimes(3, username, client)
    await setFailures(key, { first_failure_at: minutesAgo(14) })
    await failTimes(1, username, client)
    expect((await failures(key))?.failures).toBe(5)
    expectLocked(await failPassword(username, client), 30)
  })

  it('failures that arrive at the same moment are all counted, and the lock is as long as their number demands', async () => {
    const username = uniqueName('ghost')
    const client = newClient()
    const replies = await Promise.all(Array.from({ length: 10 }, () => failPassword(username, client)))
    const refused = replies.filter((reply) => reply.status === 401).length
    expect(refused + replies.filter((reply) => reply.status === 429).length).toBe(10)
    expect(refused).toBeGreaterThanOrEqual(5)
    expect((await failures(`account:${username}`))?.failures).toBe(refused)
    // Every failure from the 5th on doubles the lock, also when they raced past the check together.
    const lockSeconds = Math.min(15 * 60, 30 * 2 ** (refused - 5))
    expectLocked(await failPassword(username, client), lockSeconds, lockSeconds - 5)
  })

  it('a successful sign-in clears the count, and a password reset by a superuser lifts a lock', async () => {
    const username = uniqueName('Erin')
    const user = await createUserAs(vault.baseUrl, rootToken, { username, password: 'erins-first-password' })
    const key = `account:${username.toLowerCase()}`
    const client = newClient()
    await failTimes(3, username, client)
    expect((await failures(key))?.failures).toBe(3)
    expect((await login(vault.baseUrl, { username, password: 'erins-first-password' }, client)).status).toBe(200)
    expect(await failures(key)).toBeUndefined()

    await failTimes(5, username, client)
    expectLocked(await login(vault.baseUrl, { username, password: 'erins-first-password' }, client), 30)
    const reset = await call(vault.baseUrl, 'POST', `/api/v1/admin/users/${user.id}/password`, {
      token: rootToken,
      json: { password: 'erins-second-password' },
    })
    expect(reset.status).toBe(204)
    expect((await login(vault.baseUrl, { username, password: 'erins-second-password' }, client)).status).toBe(200)
  })

  it('wrong API keys never lock the account: a locked password does not stop its slicer hook, and a key sign-in does not reset the password count', async () => {
    const username = uniqueName('Hook')
    await createUserAs(vault.baseUrl, rootToken, { username, password: 'hook-owner-password' })
    const token = (await login(vault.baseUrl, { username, password: 'hook-owner-password' })).body.access_token
    const hookKey = (
      await call(vault.baseUrl, 'POST', '/api/v1/api-keys', { token, json: { name: 'hook', scopes: ['upload'] } })
    ).body.key
    const key = `account:${username.toLowerCase()}`
    await failTimes(6, username, newClient(), { withKey: true })
    expect(await failures(key)).toBeUndefined()

    await failTimes(3, username, newClient())
    expect((await login(vault.baseUrl, { username, api_key: hookKey }, newClient())).status).toBe(200)
    expect((await failures(key))?.failures).toBe(3)
    await failTimes(2, username, newClient())
    expectLocked(await login(vault.baseUrl, { username, password: 'hook-owner-password' }, newClient()), 30)
    expect((await login(vault.baseUrl, { username, api_key: hookKey }, newClient())).status).toBe(200)
  })

  it('a lock holds across a restart: the counts live in the database, not in the process', async () => {
    const username = uniqueName('ghost')
    const client = newClient()
    await failTimes(5, username, client)
    const restarted = await startTestVault(proxiedEnv, { shareWith: vault })
    try {
      expectLocked(await failPassword(username, client, restarted.baseUrl), 30)
      expectLocked(await failPassword(username, newClient(), restarted.baseUrl), 30)
    } finally {
      await restarted.close()
    }
  })
})

describe('failed sign-ins per client address', () => {
  /** 20 failures, each for a username of its own, so no account lock is involved. */
  const spray = async (baseUrl: string, headers: () => Record<string, string>) => {
    for (let attempt = 1; attempt <= 20; attempt++)
      await failTimes(1, uniqueName('spray'), headers(), { baseUrl, withKey: true })
  }

  it('the 20th failure from one forwarded address locks that address for every username; other addresses go on', async () => {
    const attacker = newClient()
    await spray(vault.baseUrl, () => attacker)
    expectLocked(await login(vault.baseUrl, { username: admin.username, password: admin.password }, attacker), 30)
    expectLocked(await failWithKey(uniqueName('fresh'), attacker), 30)
    expectProblem(await failWithKey(uniqueName('fresh'), newClient()), 401, 'invalid_credentials')

    const address = attacker['X-Forwarded-For']
    expect((await failures(`address:${address}`))?.failures).toBe(20)
    // Counted for the forwarded address, not for the proxy's.
    expect(await failures('address:127.0.0.1')).toBeUndefined()
  })

  it('takes the address the proxy appended last to X-Forwarded-For, not one the client put before it', async () => {
    await failWithKey(uniqueName('spoof'), { 'X-Forwarded-For': '198.51.100.1, 203.0.113.250' })
    expect((await failures('address:203.0.113.250'))?.failures).toBe(1)
    expect(await failures('address:198.51.100.1')).toBeUndefined()
  })

  it('without VAULT_TRUST_PROXY, X-Forwarded-For is ignored and failures count against the socket address', async () => {
    const direct = await startTestVault()
    try {
      let forged = 0
      const forgedClient = () => ({ 'X-Forwarded-For': `198.51.100.${++forged}` })
      await spray(direct.baseUrl, forgedClient)
      expectLocked(await failWithKey(uniqueName('fresh'), forgedClient(), direct.baseUrl), 30)
      const rows = await direct.deps.database.db
        .selectFrom('login_failures')
        .select(['key', 'failures'])
        .where('key', 'like', 'address:%')
        .execute()
      expect(rows).toEqual([{ key: 'address:127.0.0.1', failures: 20 }])
    } finally {
      await direct.close()
    }
  })
})
