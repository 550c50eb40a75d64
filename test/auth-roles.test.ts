import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  callOperation,
  createApiKeyAs,
  expectInvalidToken,
  expectProblem,
  getMe,
  listOperations,
  login,
  newAccount,
  newAccountWithKey,
  type Reply,
  refresh,
  sha256Hex,
  signIn,
  uniqueName,
} from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

let vault: TestVault
let rootToken: string
let rootId: string
/** A signed-in account with the `user` role, and one with the `admin` role. */
let member: Awaited<ReturnType<typeof newAccount>>
let manager: Awaited<ReturnType<typeof newAccount>>
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  const root = await signIn(vault.baseUrl, admin)
  rootToken = root.access_token
  rootId = root.user.id
  member = await newAccount(vault.baseUrl, rootToken, 'user')
  manager = await newAccount(vault.baseUrl, rootToken, 'admin')
})
afterAll(async () => vault.close())

const patchUser = (id: string, json: unknown, token = rootToken) =>
  call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${id}`, { token, json })
const resetPassword = (id: string, password: string) =>
  call(vault.baseUrl, 'POST', `/api/v1/admin/users/${id}/password`, { token: rootToken, json: { password } })
const listUsers = (token = rootToken) => call(vault.baseUrl, 'GET', '/api/v1/admin/users', { token })
const fieldErrors = (reply: Reply) =>
  expectProblem(reply, 422, 'validation_failed').errors.map((e: { path: string }) => e.path)

describe('superuser-only routes', () => {
  it('every operation that requires superuser refuses a user and an admin with 403, and lets a superuser through', async () => {
    const operations = await listOperations(vault.baseUrl)
    const superuserOnly = operations.filter((op) => op.role === 'superuser')
    expect(superuserOnly.map((op) => `${op.method} ${op.path}`).sort()).toEqual(
      operations
        // Superusers alone manage accounts and run maintenance (the orphan sweep).
        .filter((op) => op.path.startsWith('/api/v1/admin/') || op.path.startsWith('/api/v1/maintenance/'))
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
    )
    expect(superuserOnly.length).toBeGreaterThanOrEqual(5)
    for (const op of superuserOnly) {
      for (const token of [member.token, manager.token]) {
        const reply = await callOperation(vault.baseUrl, op, token)
        expectProblem(reply, 403, 'insufficient_role')
        expect(reply.body.detail, `${op.method} ${op.path}`).toContain('superuser')
      }
      // Past the role check, a dummy id and an empty body get the route's own answers.
      expect([200, 404, 422], `${op.method} ${op.path}`).toContain(
        (await callOperation(vault.baseUrl, op, rootToken)).status,
      )
    }
  })
})

describe('user administration', () => {
  it('creates users with the user role by default, and refuses taken names in any case, bad names and weak passwords', async () => {
    const username = uniqueName('Carol')
    const created = await call(vault.baseUrl, 'POST', '/api/v1/admin/users', {
      token: rootToken,
      json: { username, password: 'carols-long-password' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(String),
      username,
      role: 'user',
      disabled: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })

    const create = (json: unknown) => call(vault.baseUrl, 'POST', '/api/v1/admin/users', { token: rootToken, json })
    expectProblem(
      await create({ username: username.toLowerCase(), password: 'another-long-password' }),
      409,
      'username_taken',
    )
    expectProblem(
      await create({ username: username.toUpperCase(), password: 'another-long-password' }),
      409,
      'username_taken',
    )
    const refused = ['short-pw', 'has space', '-leading-dash', 'same-as-password', 'bad-role']
    expect(fieldErrors(await create({ username: refused[0], password: 'too-short' }))).toEqual(['body.password'])
    expect(fieldErrors(await create({ username: refused[1], password: 'a-long-enough-password' }))).toEqual([
      'body.username',
    ])
    expect(fieldErrors(await create({ username: refused[2], password: 'a-long-enough-password' }))).toEqual([
      'body.username',
    ])
    expect(fieldErrors(await create({ username: refused[3], password: refused[3]!.toUpperCase() }))).toEqual([
      'body.password',
    ])
    expect(
      fieldErrors(await create({ username: refused[4], password: 'a-long-enough-password', role: 'root' })),
    ).toEqual(['body.role'])
    expect(
      fieldErrors(await create({ username: 'extra-field', password: 'a-long-enough-password', admin: true })),
    ).toEqual(['body.admin'])

    const names = (await listUsers()).body.items.map((u: { username: string }) => u.username)
    for (const name of [...refused, 'extra-field']) expect(names).not.toContain(name)
    expect(names.filter((name: string) => name.toLowerCase() === username.toLowerCase())).toEqual([username])
  })

  it('lists every user without any password hash', async () => {
    const reply = await listUsers()
    expect(reply.status).toBe(200)
    const usernames = reply.body.items.map((u: { username: string }) => u.username)
    expect(usernames).toEqual(expect.arrayContaining([admin.username, member.username, manager.username]))
    for (const user of reply.body.items)
      expect(Object.keys(user).sort()).toEqual(['created_at', 'disabled', 'id', 'role', 'updated_at', 'username'])
    expect(JSON.stringify(reply.body)).not.toMatch(/scrypt|hash|password/i)
  })

  it('a role change takes effect on the very next request of that user', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    expectProblem(await listUsers(account.token), 403, 'insufficient_role')
    const promoted = await patchUser(account.user.id, { role: 'superuser' })
    expect(promoted.status).toBe(200)
    expect(promoted.body).toMatchObject({ id: account.user.id, role: 'superuser', disabled: false })
    expect((await listUsers(account.token)).status).toBe(200)
    expect((await patchUser(account.user.id, { role: 'user' })).body.role).toBe('user')
    expectProblem(await listUsers(account.token), 403, 'insufficient_role')
  })

  it('disabling ends every session at once and refuses sign-in; enabling lets the user sign in again', async () => {
    const { key, keyed, ...account } = await newAccountWithKey(vault.baseUrl, rootToken)

    const disabled = await patchUser(account.user.id, { disabled: true })
    expect(disabled.status).toBe(200)
    expect(disabled.body.disabled).toBe(true)
    expectInvalidToken(await getMe(vault.baseUrl, account.token))
    expectInvalidToken(await getMe(vault.baseUrl, keyed.access_token))
    expectProblem(await refresh(vault.baseUrl, account.refreshToken), 401, 'invalid_refresh_token')
    expectProblem(
      await login(vault.baseUrl, { username: account.username, password: account.password }),
      401,
      'invalid_credentials',
    )
    expectProblem(
      await login(vault.baseUrl, { username: account.username, api_key: key.key }),
      401,
      'invalid_credentials',
    )

    const enabled = await patchUser(account.user.id, { disabled: false })
    expect(enabled.body.disabled).toBe(false)
    const again = await signIn(vault.baseUrl, { username: account.username, password: account.password })
    expect((await getMe(vault.baseUrl, again.access_token)).status).toBe(200)
    // The sessions that disabling ended stay ended.
    expectInvalidToken(await getMe(vault.baseUrl, account.token))
  })

  it('a password reset ends every session; the new password works, the old one does not, API keys go on', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const key = await createApiKeyAs(vault.baseUrl, account.token)
    const reply = await resetPassword(account.user.id, 'a-brand-new-password')
    expect(reply.status).toBe(204)
    expectInvalidToken(await getMe(vault.baseUrl, account.token))
    expectProblem(
      await login(vault.baseUrl, { username: account.username, password: account.password }),
      401,
      'invalid_credentials',
    )
    expect((await login(vault.baseUrl, { username: account.username, password: 'a-brand-new-password' })).status).toBe(
      200,
    )
    expect((await login(vault.baseUrl, { username: account.username, api_key: key.key })).status).toBe(200)
  })

  it('refuses a reset to a password that is too short', async () => {
    expect(fieldErrors(await resetPassword(member.user.id, 'short'))).toEqual(['body.password'])
  })

  it('the last active superuser can be neither demoted nor disabled until another active superuser exists', async () => {
    expectProblem(await patchUser(rootId, { role: 'admin' }), 409, 'last_superuser')
    expectProblem(await patchUser(rootId, { disabled: true }), 409, 'last_superuser')

    const second = await newAccount(vault.baseUrl, rootToken, 'superuser')
    expect((await patchUser(second.user.id, { disabled: true })).status).toBe(200)
    // A disabled superuser administers nothing, so it does not count.
    expectProblem(await patchUser(rootId, { role: 'admin' }), 409, 'last_superuser')
    expect((await patchUser(second.user.id, { disabled: false })).status).toBe(200)

    const demoted = await patchUser(rootId, { role: 'admin' })
    expect(demoted.status).toBe(200)
    expect(demoted.body.role).toBe('admin')
    expectProblem(await listUsers(rootToken), 403, 'insufficient_role')
    // Disabling ended the second superuser's first session.
    const secondToken = (await signIn(vault.baseUrl, { username: second.username, password: second.password }))
      .access_token
    // Now the second one is the last: it cannot step down either.
    expectProblem(await patchUser(second.user.id, { role: 'user' }, secondToken), 409, 'last_superuser')
    expect((await patchUser(rootId, { role: 'superuser' }, secondToken)).status).toBe(200)
    expect((await listUsers(rootToken)).status).toBe(200)
  })

  it('refuses an empty or unknown change and an unknown user', async () => {
    expect(fieldErrors(await patchUser(member.user.id, {}))).toEqual(['body'])
    expectProblem(await patchUser(member.user.id, { role: 'user', email: 'x@example.com' }), 422, 'validation_failed')
    expectProblem(await patchUser(member.user.id, { disabled: 'yes' }), 422, 'validation_failed')
    expectProblem(await patchUser('no-such-user', { role: 'user' }), 404, 'not_found')
    expectProblem(await resetPassword('no-such-user', 'a-long-enough-password'), 404, 'not_found')
  })
})

describe('changing your own password', () => {
  const changePassword = (token: string, json: unknown) =>
    call(vault.baseUrl, 'POST', '/api/v1/me/password', { token, json })

  it('needs the right current password', async () => {
    const reply = await changePassword(member.token, {
      current_password: 'not-my-password',
      new_password: 'whatever-new-password',
    })
    expectProblem(reply, 403, 'wrong_password')
    expect((await getMe(vault.baseUrl, member.token)).status).toBe(200)
  })

  it('keeps this session, ends the others, and only the new password signs in afterwards', async () => {
    const account = await newAccount(vault.baseUrl, rootToken)
    const other = await signIn(vault.baseUrl, { username: account.username, password: account.password })
    const reply = await changePassword(account.token, {
      current_password: account.password,
      new_password: 'my-new-password-123',
    })
    expect(reply.status).toBe(204)

    expect((await getMe(vault.baseUrl, account.token)).status).toBe(200)
    expect((await refresh(vault.baseUrl, account.refreshToken)).status).toBe(200)
    expectInvalidToken(await getMe(vault.baseUrl, other.access_token))
    expectProblem(await refresh(vault.baseUrl, other.refresh_token), 401, 'invalid_refresh_token')
    expectProblem(
      await login(vault.baseUrl, { username: account.username, password: account.password }),
      401,
      'invalid_credentials',
    )
    expect((await login(vault.baseUrl, { username: account.username, password: 'my-new-password-123' })).status).toBe(
      200,
    )
  })

  it('refuses a new password that is too short, naming new_password', async () => {
    const reply = await changePassword(member.token, { current_password: member.password, new_password: 'short' })
    expect(fieldErrors(reply)).toEqual(['body.new_password'])
  })
})

describe('API keys (Settings → Access)', () => {
  const listKeys = async (token: string) => (await call(vault.baseUrl, 'GET', '/api/v1/api-keys', { token })).body.items
  const revoke = (id: string, token: string) => call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${id}`, { token })

  it('shows a new key once, and lists keys without their value or hash', async () => {
    const name = uniqueName('PrusaSlicer hook')
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/api-keys', {
      token: member.token,
      json: { name, scopes: ['upload'] },
    })
    expect(reply.status).toBe(201)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    const key = reply.body
    expect(key).toEqual({
      id: expect.any(String),
      name,
      prefix: expect.stringMatching(/^mvk_[0-9a-f]{12}$/),
      key: expect.stringMatching(/^mvk_[0-9a-f]{12}_[\w-]{43}$/),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      scopes: ['upload'],
      expires_at: null,
    })
    expect(key.key.startsWith(`${key.prefix}_`)).toBe(true)

    const items = await listKeys(member.token)
    const { key: _shownOnce, ...listed } = key
    expect(items).toContainEqual(listed)
    const text = JSON.stringify(items)
    for (const secret of [key.key, key.key.slice(17), sha256Hex(key.key)]) expect(text).not.toContain(secret)
    // Each user sees only their own keys.
    expect(JSON.stringify(await listKeys(manager.token))).not.toContain(key.id)
  })

  it('refuses a second active key with the same name, and a blank name', async () => {
    const name = uniqueName('backup script')
    await createApiKeyAs(vault.baseUrl, member.token, name)
    for (const clash of [name, `  ${name} `]) {
      expectProblem(
        await call(vault.baseUrl, 'POST', '/api/v1/api-keys', {
          token: member.token,
          json: { name: clash, scopes: ['full'] },
        }),
        409,
        'api_key_name_taken',
      )
    }
    expect(
      fieldErrors(
        await call(vault.baseUrl, 'POST', '/api/v1/api-keys', {
          token: member.token,
          json: { name: '   ', scopes: ['full'] },
        }),
      ),
    ).toEqual(['body.name'])
    // Names are per user: another user may use the same one.
    await createApiKeyAs(vault.baseUrl, manager.token, name)
  })

  it('revoking a key stops sign-in with it and ends the sessions opened with it at once; the password session goes on', async () => {
    const key = await createApiKeyAs(vault.baseUrl, member.token)
    const keyed = await signIn(vault.baseUrl, { username: member.username, api_key: key.key })
    expect((await getMe(vault.baseUrl, keyed.access_token)).status).toBe(200)

    const reply = await revoke(key.id, member.token)
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ id: key.id, name: key.name, revoked_at: expect.any(String) })
    expect(reply.body).not.toHaveProperty('key')
    expectInvalidToken(await getMe(vault.baseUrl, keyed.access_token))
    expectProblem(await refresh(vault.baseUrl, keyed.refresh_token), 401, 'invalid_refresh_token')
    expectProblem(
      await login(vault.baseUrl, { username: member.username, api_key: key.key }),
      401,
      'invalid_credentials',
    )
    expect((await listKeys(member.token)).find((k: { id: string }) => k.id === key.id).revoked_at).toBe(
      reply.body.revoked_at,
    )
    expect((await getMe(vault.baseUrl, member.token)).status).toBe(200)

    // Revoking again is harmless and keeps the first time.
    const again = await revoke(key.id, member.token)
    expect(again.status).toBe(200)
    expect(again.body.revoked_at).toBe(reply.body.revoked_at)
  })

  it("cannot revoke another user's key: 404, and the key keeps working", async () => {
    const key = await createApiKeyAs(vault.baseUrl, manager.token)
    expectProblem(await revoke(key.id, member.token), 404, 'not_found')
    expectProblem(await revoke(key.id, rootToken), 404, 'not_found')
    expect((await login(vault.baseUrl, { username: manager.username, api_key: key.key })).status).toBe(200)
  })

  it("a revoked key's name can be given to a new key", async () => {
    const key = await createApiKeyAs(vault.baseUrl, member.token)
    expect((await revoke(key.id, member.token)).status).toBe(200)
    const renewed = await createApiKeyAs(vault.baseUrl, member.token, key.name)
    expect(renewed.id).not.toBe(key.id)
    expect(renewed.key).not.toBe(key.key)
  })
})
