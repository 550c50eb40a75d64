import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  expectInvalidToken,
  expectProblem,
  getMe,
  newAccount,
  newAccountWithKey,
  type Reply,
  refresh,
  signIn,
} from './support/accounts.js'
import { shiftedClock } from './support/shifted-clock.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/**
 * Revocations made through another process on the same database (another replica, the CLI) reach
 * this one within `VAULT_SESSION_RECHECK_MS`. `here` has confirmed the credential (a 200) just
 * before `elsewhere` revokes it; a request sent once the window has passed since then must be
 * refused. Nothing asserts what happens inside the window, so a slow machine cannot fail this.
 */
const recheckMs = 300
// Both instances' clock: moved past the window instead of waiting it out.
const clock = shiftedClock()
let here: TestVault
let elsewhere: TestVault
let rootToken: string
beforeAll(async () => {
  here = await startTestVault({ ...adminEnv, VAULT_SESSION_RECHECK_MS: String(recheckMs) }, { clock })
  elsewhere = await startTestVault(adminEnv, { shareWith: here, clock })
  rootToken = (await signIn(elsewhere.baseUrl, admin)).access_token
})
afterAll(async () => {
  await elsewhere?.close()
  await here?.close()
})

const windowPassed = () => clock.advance(recheckMs + 50)
const meWithKey = (baseUrl: string, key: string) =>
  call(baseUrl, 'GET', '/api/v1/me', { headers: { 'X-Api-Key': key } })

describe(`a revocation made through another instance takes effect here within VAULT_SESSION_RECHECK_MS (${recheckMs} ms)`, () => {
  it('a logout', async () => {
    const account = await newAccount(elsewhere.baseUrl, rootToken)
    expect((await getMe(here.baseUrl, account.token)).status).toBe(200)
    expect((await call(elsewhere.baseUrl, 'POST', '/api/v1/auth/logout', { token: account.token })).status).toBe(204)
    windowPassed()
    expectInvalidToken(await getMe(here.baseUrl, account.token))
  })

  it('a session ended because its refresh token came back', async () => {
    const account = await newAccount(elsewhere.baseUrl, rootToken)
    const rotated = await refresh(elsewhere.baseUrl, account.refreshToken)
    expect((await getMe(here.baseUrl, rotated.body.access_token)).status).toBe(200)
    expectProblem(await refresh(elsewhere.baseUrl, account.refreshToken), 401, 'refresh_token_reused')
    windowPassed()
    expectInvalidToken(await getMe(here.baseUrl, rotated.body.access_token))
  })

  it('disabling the user: its sessions and its API keys', async () => {
    const { key, keyed, ...account } = await newAccountWithKey(elsewhere.baseUrl, rootToken)
    const confirmedHere = [
      await getMe(here.baseUrl, account.token),
      await getMe(here.baseUrl, keyed.access_token),
      await meWithKey(here.baseUrl, key.key),
    ]
    expect(confirmedHere.map((reply: Reply) => reply.status)).toEqual([200, 200, 200])
    const disabled = await call(elsewhere.baseUrl, 'PATCH', `/api/v1/admin/users/${account.user.id}`, {
      token: rootToken,
      json: { disabled: true },
    })
    expect(disabled.status).toBe(200)
    windowPassed()
    expectInvalidToken(await getMe(here.baseUrl, account.token))
    expectInvalidToken(await getMe(here.baseUrl, keyed.access_token))
    expectProblem(await meWithKey(here.baseUrl, key.key), 401, 'invalid_token')
  })

  it('revoking an API key: the key and the sessions opened with it', async () => {
    const { key, keyed, ...account } = await newAccountWithKey(elsewhere.baseUrl, rootToken)
    expect((await meWithKey(here.baseUrl, key.key)).status).toBe(200)
    expect((await getMe(here.baseUrl, keyed.access_token)).status).toBe(200)
    const revoked = await call(elsewhere.baseUrl, 'DELETE', `/api/v1/api-keys/${key.id}`, { token: account.token })
    expect(revoked.status).toBe(200)
    windowPassed()
    expectProblem(await meWithKey(here.baseUrl, key.key), 401, 'invalid_token')
    expectInvalidToken(await getMe(here.baseUrl, keyed.access_token))
    // The password session of the key's owner goes on.
    expect((await getMe(here.baseUrl, account.token)).status).toBe(200)
  })

  it('taking a role away', async () => {
    const account = await newAccount(elsewhere.baseUrl, rootToken, 'superuser')
    const listUsers = () => call(here.baseUrl, 'GET', '/api/v1/admin/users', { token: account.token })
    expect((await listUsers()).status).toBe(200)
    const demoted = await call(elsewhere.baseUrl, 'PATCH', `/api/v1/admin/users/${account.user.id}`, {
      token: rootToken,
      json: { role: 'user' },
    })
    expect(demoted.status).toBe(200)
    windowPassed()
    expectProblem(await listUsers(), 403, 'insufficient_role')
  })
})
