import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  createApiKeyAs,
  expectProblem,
  getMe,
  newAccount,
  refresh,
  signIn,
} from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/** API keys presented on their own, as scripts, slicer hooks and OctoPrint clients send them. */
let vault: TestVault
let rootToken: string

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  rootToken = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault?.close())

const asKey = (key: string, header: 'bearer' | 'x-api-key'): Record<string, string> =>
  header === 'bearer' ? { Authorization: `Bearer ${key}` } : { 'X-Api-Key': key }

describe('an API key on its own', () => {
  it.each(['bearer', 'x-api-key'] as const)('acts for its owner, without a session (%s)', async (header) => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const key = await createApiKeyAs(vault.baseUrl, account.token)
    const me = await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(key.key, header) })
    expect(me.status, JSON.stringify(me.body)).toBe(200)
    expect(me.body).toMatchObject({ user: { id: account.user.id }, session_id: null, api_key_id: key.id })

    // An upload, as a slicer hook sends it.
    const form = new FormData()
    form.append('file', new Blob([`G28\nG1 X10 Y10 ; ${header}\n`]), `hook-${header}.gcode`)
    const uploaded = await fetch(`${vault.baseUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: asKey(key.key, header),
      body: form,
    })
    expect(uploaded.status, await uploaded.clone().text()).toBe(201)

    const listed = await call(vault.baseUrl, 'GET', '/api/v1/api-keys', { token: account.token })
    expect(listed.body.items[0].last_used_at).toEqual(expect.any(String))
  })

  it('has its owner role: a user key is refused admin work with 403', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const key = await createApiKeyAs(vault.baseUrl, account.token)
    expectProblem(
      await call(vault.baseUrl, 'GET', '/api/v1/admin/users', { headers: asKey(key.key, 'x-api-key') }),
      403,
      'insufficient_role',
    )
  })

  it('stops at once when revoked or when its user is disabled', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const revoked = await createApiKeyAs(vault.baseUrl, account.token)
    const kept = await createApiKeyAs(vault.baseUrl, account.token)
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(revoked.key, 'bearer') })).status).toBe(200)
    await call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${revoked.id}`, { token: account.token })
    expectProblem(
      await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(revoked.key, 'bearer') }),
      401,
      'invalid_token',
    )

    await call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${account.user.id}`, {
      token: rootToken,
      json: { disabled: true },
    })
    expectProblem(
      await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(kept.key, 'x-api-key') }),
      401,
      'invalid_token',
    )
  })

  it.each([
    ['an unknown key of the right shape', `mvk_0123456789ab_${'A'.repeat(43)}`],
    ['a malformed key', 'mvk_nonsense'],
    ['a key with a changed secret', 'CHANGED'],
  ])('refuses %s with 401 invalid_token', async (_, presented) => {
    const genuine = (await createApiKeyAs(vault.baseUrl, rootToken)).key
    const key = presented === 'CHANGED' ? `${genuine.slice(0, -1)}${genuine.endsWith('A') ? 'B' : 'A'}` : presented
    for (const header of ['bearer', 'x-api-key'] as const)
      expectProblem(
        await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(key, header) }),
        401,
        'invalid_token',
      )
  })

  it('has no session to sign out of, and says to revoke the key', async () => {
    const key = await createApiKeyAs(vault.baseUrl, rootToken)
    const reply = expectProblem(
      await call(vault.baseUrl, 'POST', '/api/v1/auth/logout', { headers: asKey(key.key, 'x-api-key') }),
      409,
      'no_session',
    )
    expect(reply.detail).toContain('revoke the key')
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(key.key, 'x-api-key') })).status).toBe(200)
  })

  it('changing the password through a key ends every session of the user', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const key = await createApiKeyAs(vault.baseUrl, account.token)
    const changed = await call(vault.baseUrl, 'POST', '/api/v1/me/password', {
      headers: asKey(key.key, 'bearer'),
      json: { current_password: account.password, new_password: `${account.password}-new-and-long` },
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(204)
    expectProblem(await getMe(vault.baseUrl, account.token), 401, 'invalid_token')
    expectProblem(await refresh(vault.baseUrl, account.refreshToken), 401, 'invalid_refresh_token')
  })
})
