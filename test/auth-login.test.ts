import { decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  comparable,
  createApiKeyAs,
  createUserAs,
  expectProblem,
  getMe,
  login,
  newAccount,
  newAccountWithKey,
  type Reply,
  sha256Hex,
  signIn,
  uniqueName,
} from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// Every failed sign-in in this file comes from 127.0.0.1, and the 20th failure from one
// address locks it: tests that need many failures start their own vault.
let vault: TestVault
let rootToken: string
/** What a wrong password for `root` answers, minus what differs per request. */
let refusal: Record<string, unknown>
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  rootToken = (await signIn(vault.baseUrl, admin)).access_token
  refusal = comparable(
    expectRefused(await login(vault.baseUrl, { username: admin.username, password: 'not-the-root-password' })),
  )
})
afterAll(async () => vault.close())

function expectRefused(reply: Reply) {
  const body = expectProblem(reply, 401, 'invalid_credentials')
  expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="model-vault"')
  return body
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

describe('signing in with a password', () => {
  it('answers a bearer access token for 15 minutes, a refresh token and the user, and forbids caching', async () => {
    const reply = await login(vault.baseUrl, admin)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 30 * 24 * 60 * 60 })
    expect(reply.body.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(reply.body.refresh_token).toMatch(/^mvr_[\w-]{43}$/)
    expect(reply.body.user).toMatchObject({ username: admin.username, role: 'superuser', disabled: false })
    expect(Object.keys(reply.body.user).sort()).toEqual([
      'created_at',
      'disabled',
      'id',
      'role',
      'updated_at',
      'username',
    ])
    expect(JSON.stringify(reply.body)).not.toMatch(/scrypt|password|hash/i)

    const me = await getMe(vault.baseUrl, reply.body.access_token)
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ user: { id: reply.body.user.id, username: admin.username }, api_key_id: null })
  })

  it('issues an HS256 JWT for the vault API, bound to the user and the session, valid for exactly 900 s', async () => {
    const before = Math.floor(Date.now() / 1000)
    const tokens = await signIn(vault.baseUrl, admin)
    const header = decodeProtectedHeader(tokens.access_token)
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: expect.stringMatching(/^[0-9a-f]{16}$/) })
    const claims = decodeJwt(tokens.access_token)
    const me = await getMe(vault.baseUrl, tokens.access_token)
    expect(claims).toEqual({
      iss: 'model-vault',
      aud: 'model-vault-api',
      sub: tokens.user.id,
      sid: me.body.session_id,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: expect.any(Number),
    })
    expect(claims.exp! - claims.iat!).toBe(900)
    expect(claims.iat).toBeGreaterThanOrEqual(before)
    expect(claims.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000))
    // A token identifies its session; a second sign-in is a second session with its own token id.
    const again = decodeJwt((await signIn(vault.baseUrl, admin)).access_token)
    expect(again.sid).not.toBe(claims.sid)
    expect(again.jti).not.toBe(claims.jti)
  })

  it('accepts a password whose accents are composed differently than when it was set', async () => {
    const username = uniqueName('zoe')
    const password = 'crème brûlée à la façon de Zoë'
    expect(password.normalize('NFD')).not.toBe(password.normalize('NFC'))
    await createUserAs(vault.baseUrl, rootToken, { username, password: password.normalize('NFC') })
    expect((await login(vault.baseUrl, { username, password: password.normalize('NFD') })).status).toBe(200)
  })
})

describe('signing in with an API key', () => {
  it('opens a session tied to the key, and the key listing shows when it was last used', async () => {
    const key = await createApiKeyAs(vault.baseUrl, rootToken)
    const listed = async () =>
      (await call(vault.baseUrl, 'GET', '/api/v1/api-keys', { token: rootToken })).body.items.find(
        (k: { id: string }) => k.id === key.id,
      )
    expect((await listed()).last_used_at).toBeNull()

    const before = Date.now()
    const tokens = await signIn(vault.baseUrl, { username: admin.username, api_key: key.key })
    expect(tokens.user.username).toBe(admin.username)
    const me = await getMe(vault.baseUrl, tokens.access_token)
    expect(me.status).toBe(200)
    expect(me.body.api_key_id).toBe(key.id)
    const lastUsed = Date.parse((await listed()).last_used_at)
    expect(lastUsed).toBeGreaterThanOrEqual(before - 1000)
    expect(lastUsed).toBeLessThanOrEqual(Date.now())
  })

  it('matches the username without regard to case', async () => {
    const key = await createApiKeyAs(vault.baseUrl, rootToken)
    const tokens = await signIn(vault.baseUrl, { username: admin.username.toUpperCase(), api_key: key.key })
    expect(tokens.user.username).toBe(admin.username)
  })
})

describe('a sign-in request carries a username and exactly one credential', () => {
  const fieldErrors = (reply: Reply) =>
    expectProblem(reply, 422, 'validation_failed').errors.map((e: { path: string }) => e.path)

  it('refuses a password and an API key together, naming api_key', async () => {
    const reply = await login(vault.baseUrl, {
      username: admin.username,
      password: admin.password,
      api_key: 'mvk_000000000000_x',
    })
    expect(fieldErrors(reply)).toEqual(['body.api_key'])
  })

  it('refuses a request with neither, naming password', async () => {
    expect(fieldErrors(await login(vault.baseUrl, { username: admin.username }))).toEqual(['body.password'])
  })

  it('refuses an unknown field such as a misspelt password', async () => {
    const reply = await login(vault.baseUrl, { username: admin.username, passwd: admin.password })
    expectProblem(reply, 422, 'validation_failed')
    expect(JSON.stringify(reply.body.errors)).toContain('passwd')
  })

  it('refuses a request without a username', async () => {
    expect(fieldErrors(await login(vault.baseUrl, { password: admin.password }))).toEqual(['body.username'])
  })

  it('answers 400 malformed_json to a body that is not JSON', async () => {
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/auth/login', {
      body: '{"username": "root", ',
      headers: { 'Content-Type': 'application/json' },
    })
    expectProblem(reply, 400, 'malformed_json')
  })

  it('answers 415 to a JSON text sent as text/plain', async () => {
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/auth/login', {
      body: JSON.stringify(admin),
      headers: { 'Content-Type': 'text/plain' },
    })
    expectProblem(reply, 415, 'unsupported_media_type')
  })
})

describe('a refused sign-in reveals nothing about the account', () => {
  it('gives a wrong username and a wrong password the very same answer', async () => {
    const unknown = await login(vault.baseUrl, { username: uniqueName('nobody'), password: admin.password })
    expect(comparable(expectRefused(unknown))).toEqual(refusal)
  })

  it('takes as long to refuse an unknown username as a wrong password (the unknown user pays for a hash check too)', async () => {
    // Its own vault: these ten failures would eat into the per-address allowance of the shared one.
    const timed = await startTestVault(adminEnv)
    try {
      const durations = { unknown: [] as number[], wrongPassword: [] as number[] }
      const attempt = async (kind: keyof typeof durations, username: string) => {
        const started = performance.now()
        const reply = await login(timed.baseUrl, { username, password: 'a-wrong-password-1' })
        durations[kind].push(performance.now() - started)
        expectRefused(reply)
      }
      const ghost = uniqueName('ghost')
      // Alternating, each side first half of the time, so load from other test files hits both alike.
      for (let i = 0; i < 5; i++) {
        if (i % 2 === 0) await attempt('unknown', ghost).then(() => attempt('wrongPassword', admin.username))
        else await attempt('wrongPassword', admin.username).then(() => attempt('unknown', ghost))
      }
      const ratio = median(durations.unknown) / median(durations.wrongPassword)
      expect(ratio, JSON.stringify(durations)).toBeGreaterThan(0.5)
      expect(ratio, JSON.stringify(durations)).toBeLessThan(2)
    } finally {
      await timed.close()
    }
  })

  /** Each builds credentials that are right in every respect but one. */
  const nearMisses: Record<string, () => Promise<Record<string, unknown>>> = {
    'a disabled user with the right password': async () => {
      const account = await newAccount(vault.baseUrl, rootToken)
      const disabled = await call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${account.user.id}`, {
        token: rootToken,
        json: { disabled: true },
      })
      expect(disabled.status).toBe(200)
      return { username: account.username, password: account.password }
    },
    "another user's API key": async () => {
      const account = await newAccount(vault.baseUrl, rootToken)
      return { username: admin.username, api_key: (await createApiKeyAs(vault.baseUrl, account.token)).key }
    },
    'a revoked API key': async () => {
      const key = await createApiKeyAs(vault.baseUrl, rootToken)
      expect((await call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${key.id}`, { token: rootToken })).status).toBe(200)
      return { username: admin.username, api_key: key.key }
    },
  }
  for (const [name, credentials] of Object.entries(nearMisses)) {
    it(`refuses ${name} with the same answer`, async () => {
      const reply = await login(vault.baseUrl, await credentials())
      expect(comparable(expectRefused(reply))).toEqual(refusal)
    })
  }
})

describe('the first superuser', () => {
  const firstSuperuserLines = (logs: Record<string, unknown>[]) =>
    logs.filter((line) => String(line.msg).includes('first superuser'))

  it('without VAULT_ADMIN_PASSWORD is "admin" with a generated password logged once, and a restart creates no other', async () => {
    const fresh = await startTestVault()
    try {
      const lines = firstSuperuserLines(fresh.logs)
      expect(lines).toEqual([
        expect.objectContaining({ level: 'warn', username: 'admin', password: expect.any(String) }),
      ])
      const password = lines[0]!.password as string
      expect(password.length).toBeGreaterThanOrEqual(20)
      expect((await signIn(fresh.baseUrl, { username: 'admin', password })).user.role).toBe('superuser')

      // A restart, even one that now names an admin, leaves the accounts as they are.
      const restarted = await startTestVault(adminEnv, { shareWith: fresh })
      try {
        expect(firstSuperuserLines(restarted.logs)).toEqual([])
        expect(JSON.stringify(restarted.logs)).not.toContain(password)
        const users = await fresh.deps.database.db.selectFrom('users').select(['username', 'role']).execute()
        expect(users).toEqual([{ username: 'admin', role: 'superuser' }])
        expect((await login(restarted.baseUrl, { username: 'admin', password })).status).toBe(200)
      } finally {
        await restarted.close()
      }
    } finally {
      await fresh.close()
    }
  })

  it('with VAULT_ADMIN_PASSWORD is created under that name, and the log line carries no password', async () => {
    expect(firstSuperuserLines(vault.logs)).toEqual([
      { time: expect.any(String), level: 'info', msg: 'created the first superuser', username: admin.username },
    ])
  })
})

describe('secrets at rest and in the log', () => {
  it('stores passwords as salted scrypt hashes, and API keys and refresh tokens only as SHA-256', async () => {
    const { key, keyed, ...account } = await newAccountWithKey(vault.baseUrl, rootToken)
    const { db } = vault.deps.database

    const user = await db.selectFrom('users').selectAll().where('id', '=', account.user.id).executeTakeFirstOrThrow()
    // 16-byte salt and 32-byte key, base64 without padding.
    expect(user.password_hash).toMatch(/^\$scrypt\$ln=\d+,r=\d+,p=\d+\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    const keyRow = await db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow()
    expect(keyRow.key_hash).toBe(sha256Hex(key.key))
    const refreshHashes = await db
      .selectFrom('refresh_tokens')
      .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
      .select('refresh_tokens.token_hash')
      .where('sessions.user_id', '=', account.user.id)
      .execute()
    expect(refreshHashes.map((row) => row.token_hash).sort()).toEqual(
      [sha256Hex(account.refreshToken), sha256Hex(keyed.refresh_token)].sort(),
    )

    const everything = JSON.stringify([
      await db.selectFrom('users').selectAll().execute(),
      await db.selectFrom('api_keys').selectAll().execute(),
      await db.selectFrom('sessions').selectAll().execute(),
      await db.selectFrom('refresh_tokens').selectAll().execute(),
      await db.selectFrom('login_failures').selectAll().execute(),
    ])
    for (const secret of [
      account.password,
      admin.password,
      key.key,
      key.key.slice(17),
      account.refreshToken,
      keyed.refresh_token,
      'mvr_',
      'mvk_',
    ]) {
      expect(everything).not.toContain(secret)
    }
  })

  it('never writes a password, an API key or a token to the log', async () => {
    const { key, keyed, ...account } = await newAccountWithKey(vault.baseUrl, rootToken)
    await login(vault.baseUrl, { username: account.username, password: `${account.password}-typo` })
    const log = JSON.stringify(vault.logs)
    // The sign-ins above were logged, so the log is not simply empty.
    expect(
      vault.logs.filter((line) => line.path === '/api/v1/auth/login' && line.status === 200).length,
    ).toBeGreaterThanOrEqual(2)
    for (const secret of [
      admin.password,
      account.password,
      key.key,
      account.token,
      account.refreshToken,
      keyed.access_token,
      keyed.refresh_token,
    ]) {
      expect(log).not.toContain(secret)
    }
  })
})
