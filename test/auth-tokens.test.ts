import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { base64url, decodeJwt, decodeProtectedHeader, type JWTHeaderParameters, type JWTPayload, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  callOperation,
  createApiKeyAs,
  expectInvalidToken,
  expectInvalidTokenFrom,
  expectProblem,
  expectRefusal,
  getMe,
  listOperations,
  type Operation,
  refresh,
  sha256Hex,
  signIn,
} from './support/accounts.js'
import { shiftedClock } from './support/shifted-clock.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// The vault signs with a known secret, so the tests can build tokens that differ from a
// genuine one in exactly one respect.
const jwtSecret = 'auth-tokens-test-secret-0123456789abcdefghij'
// Moved forward to let a token expire without waiting for it.
const clock = shiftedClock()
let vault: TestVault
let rootKey: string
let protectedOperations: Operation[]
beforeAll(async () => {
  vault = await startTestVault({ ...adminEnv, VAULT_JWT_SECRET: jwtSecret }, { clock })
  rootKey = (await createApiKeyAs(vault.baseUrl, (await signIn(vault.baseUrl, admin)).access_token)).key
  protectedOperations = (await listOperations(vault.baseUrl)).filter((op) => op.security?.length !== 0)
})
afterAll(async () => vault.close())

/** A new session of root, opened with an API key: no password hashing needed. */
const openSession = () => signIn(vault.baseUrl, { username: admin.username, api_key: rootKey })
const sessionId = (tokens: { access_token: string }) => decodeJwt(tokens.access_token).sid as string
const sessions = () => vault.deps.database.db.updateTable('sessions')

describe('refresh tokens rotate', () => {
  it('a refresh answers a new pair for the same session, without caching', async () => {
    const first = await openSession()
    const reply = await refresh(vault.baseUrl, first.refresh_token)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 30 * 24 * 60 * 60 })
    expect(reply.body.refresh_token).toMatch(/^mvr_[\w-]{43}$/)
    expect(reply.body.refresh_token).not.toBe(first.refresh_token)
    expect(reply.body.access_token).not.toBe(first.access_token)
    const me = await getMe(vault.baseUrl, reply.body.access_token)
    expect(me.status).toBe(200)
    expect(me.body.session_id).toBe(sessionId(first))
  })

  it('a used refresh token presented again ends its whole session, but not the other sessions of the user', async () => {
    const stolen = await openSession()
    const unrelated = await openSession()
    const rotated = await refresh(vault.baseUrl, stolen.refresh_token)
    expect(rotated.status).toBe(200)

    expectProblem(await refresh(vault.baseUrl, stolen.refresh_token), 401, 'refresh_token_reused')
    expectProblem(await refresh(vault.baseUrl, rotated.body.refresh_token), 401, 'invalid_refresh_token')
    expectInvalidToken(await getMe(vault.baseUrl, rotated.body.access_token))
    expectInvalidToken(await getMe(vault.baseUrl, stolen.access_token))

    expect((await getMe(vault.baseUrl, unrelated.access_token)).status).toBe(200)
    expect((await refresh(vault.baseUrl, unrelated.refresh_token)).status).toBe(200)
  })

  it('of two refreshes racing with one token, exactly one wins, and the race ends the session', async () => {
    const session = await openSession()
    const replies = await Promise.all([
      refresh(vault.baseUrl, session.refresh_token),
      refresh(vault.baseUrl, session.refresh_token),
    ])
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 401])
    const winner = replies.find((reply) => reply.status === 200)!
    expectProblem(replies.find((reply) => reply.status === 401)!, 401, 'refresh_token_reused')
    expectInvalidToken(await getMe(vault.baseUrl, winner.body.access_token))
  })

  it('a session unused for 30 days has ended: its access token and its refresh token are refused', async () => {
    const session = await openSession()
    await sessions()
      .set({ expires_at: new Date(clock.now().getTime() - 1000).toISOString() })
      .where('id', '=', sessionId(session))
      .execute()
    expectInvalidToken(await getMe(vault.baseUrl, session.access_token))
    expectProblem(await refresh(vault.baseUrl, session.refresh_token), 401, 'invalid_refresh_token')
  })

  it('each refresh gives the session another 30 days', async () => {
    const session = await openSession()
    await sessions()
      .set({ expires_at: new Date(clock.now().getTime() + 60_000).toISOString() })
      .where('id', '=', sessionId(session))
      .execute()
    expect((await refresh(vault.baseUrl, session.refresh_token)).status).toBe(200)
    const row = await vault.deps.database.db
      .selectFrom('sessions')
      .select('expires_at')
      .where('id', '=', sessionId(session))
      .executeTakeFirstOrThrow()
    const thirtyDays = 30 * 24 * 60 * 60 * 1000
    expect(Date.parse(row.expires_at) - clock.now().getTime()).toBeGreaterThan(thirtyDays - 60_000)
    expect(Date.parse(row.expires_at) - clock.now().getTime()).toBeLessThanOrEqual(thirtyDays)
  })

  it('refuses a refresh token the vault never issued', async () => {
    for (const token of ['garbage', `mvr_${base64url.encode(crypto.getRandomValues(new Uint8Array(32)))}`]) {
      const reply = await refresh(vault.baseUrl, token)
      expectProblem(reply, 401, 'invalid_refresh_token')
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="model-vault"')
    }
  })

  it('refuses a malformed refresh request with 422', async () => {
    for (const json of [
      {},
      { refresh_token: 42 },
      { refresh_token: '' },
      { refresh_token: 'mvr_x', access_token: 'y' },
    ]) {
      expectProblem(await call(vault.baseUrl, 'POST', '/api/v1/auth/refresh', { json }), 422, 'validation_failed')
    }
  })
})

describe('signing out', () => {
  it('ends the session at once: its access token and its refresh token stop working, other sessions go on', async () => {
    const session = await openSession()
    const other = await openSession()
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/auth/logout', { token: session.access_token })
    expect(reply.status).toBe(204)
    expect(reply.body).toBeNull()
    expectInvalidToken(await getMe(vault.baseUrl, session.access_token))
    expectProblem(await refresh(vault.baseUrl, session.refresh_token), 401, 'invalid_refresh_token')
    expect((await getMe(vault.baseUrl, other.access_token)).status).toBe(200)
  })
})

describe('every endpoint but seven needs a token (default deny)', () => {
  it('the OpenAPI document marks only health and the probes, login, refresh and the signed downloads (their token in the path) as public', async () => {
    const operations = await listOperations(vault.baseUrl)
    const publicOnes = operations.filter((op) => op.security?.length === 0).map((op) => `${op.method} ${op.path}`)
    expect(publicOnes.sort()).toEqual([
      'GET /api/v1/health',
      'GET /api/v1/signed/files/{id}/{token}/{name}',
      'GET /api/v1/signed/packages/{id}/{token}/{name}',
      'GET /livez',
      'GET /readyz',
      'POST /api/v1/auth/login',
      'POST /api/v1/auth/refresh',
    ])
    expect(protectedOperations.length).toBe(operations.length - 7)
    for (const op of protectedOperations) {
      // Either credential, holding any one of the operation's scopes (none named: any scope).
      const alternatives = op.scopes?.length ? op.scopes.map((scope) => [scope]) : [[]]
      expect(op.security, `${op.method} ${op.path}`).toEqual(
        alternatives.flatMap((scopes) => [{ bearerAuth: scopes }, { apiKeyAuth: scopes }]),
      )
      expect(['user', 'admin', 'superuser'], `${op.method} ${op.path}`).toContain(op.role)
    }
  })

  it('every other operation answers 401 missing_token with a Bearer challenge to a request without a token', async () => {
    expect(protectedOperations.length).toBeGreaterThanOrEqual(10)
    for (const op of protectedOperations) {
      const headerSets: Record<string, string>[] = [
        {},
        { Authorization: 'Basic cm9vdDpwYXNzd29yZA==' },
        { Authorization: 'Bearer' },
        { 'X-Api-Key': ' ' },
      ]
      for (const headers of headerSets) {
        const reply = await callOperation(vault.baseUrl, op, undefined, headers)
        expectRefusal(op, reply, 401, 'missing_token')
        expect(reply.headers.get('www-authenticate'), `${op.method} ${op.path}`).toBe('Bearer realm="model-vault"')
      }
    }
  })
})

describe('only genuine, current tokens of a live session are accepted', () => {
  const otherSecret = 'some-other-secret-that-is-long-enough-012345'
  let genuine: { token: string; claims: JWTPayload; kid: string }
  beforeAll(async () => {
    const token = (await openSession()).access_token
    genuine = { token, claims: decodeJwt(token), kid: decodeProtectedHeader(token).kid! }
  })

  const encodeJson = (value: unknown) => base64url.encode(JSON.stringify(value))
  /** The genuine claims with `change` applied (undefined removes a claim), signed as told. */
  const forge = (change: JWTPayload, options: { secret?: string; header?: Partial<JWTHeaderParameters> } = {}) => {
    const claims = Object.fromEntries(
      Object.entries({ ...genuine.claims, ...change }).filter(([, value]) => value !== undefined),
    )
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: genuine.kid, ...options.header })
      .sign(new TextEncoder().encode(options.secret ?? jwtSecret))
  }
  const now = () => Math.floor(clock.now().getTime() / 1000)

  it('a token built here with the right secret and genuine claims is accepted (so the refusals below are for their one flaw)', async () => {
    const reply = await getMe(vault.baseUrl, await forge({ jti: crypto.randomUUID() }))
    expect(reply.status).toBe(200)
    expect(reply.body.session_id).toBe(genuine.claims.sid)
  })

  it('a token accepted once (and so remembered as verified) is refused from the second it expires', async () => {
    const expiresAt = now() + 2
    const token = await forge({ jti: crypto.randomUUID(), exp: expiresAt })
    expect((await getMe(vault.baseUrl, token)).status).toBe(200)
    expect((await getMe(vault.baseUrl, token)).status).toBe(200)
    clock.advance(expiresAt * 1000 - clock.now().getTime() + 50)
    const reply = await getMe(vault.baseUrl, token)
    expect(reply.status).toBe(401)
  })

  it('a remembered token stops working the moment its session is revoked', async () => {
    const tokens = await openSession()
    expect((await getMe(vault.baseUrl, tokens.access_token)).status).toBe(200)
    // Revoked by this process: at once (by another process: test/auth-revocation-bound.test.ts).
    expect((await call(vault.baseUrl, 'POST', '/api/v1/auth/logout', { token: tokens.access_token })).status).toBe(204)
    expect((await getMe(vault.baseUrl, tokens.access_token)).status).toBe(401)
  })

  const flawed: Record<string, () => Promise<string> | string> = {
    'a string that is not a JWT': () => 'not-a-jwt',
    'three segments of garbage': () => 'abc.def.ghi',
    'a genuine token whose payload was changed after signing': () => {
      const [header, , signature] = genuine.token.split('.')
      return `${header}.${encodeJson({ ...genuine.claims, sub: crypto.randomUUID() })}.${signature}`
    },
    'a token signed with another secret under its own key id': () =>
      forge({}, { secret: otherSecret, header: { kid: sha256Hex(otherSecret).slice(0, 16) } }),
    'a token signed with another secret under the real key id': () => forge({}, { secret: otherSecret }),
    'a token without a key id': () => forge({}, { header: { kid: undefined } }),
    'an unsigned token (alg none)': () => `${encodeJson({ alg: 'none', typ: 'JWT' })}.${encodeJson(genuine.claims)}.`,
    'an unsigned token (alg none) under the real key id': () =>
      `${encodeJson({ alg: 'none', typ: 'JWT', kid: genuine.kid })}.${encodeJson(genuine.claims)}.`,
    'a token signed with the right secret but another algorithm (HS512)': () => forge({}, { header: { alg: 'HS512' } }),
    'a token without exp': () => forge({ exp: undefined }),
    'an expired token': () => forge({ iat: now() - 1000, exp: now() - 100 }),
    'a token for another audience': () => forge({ aud: 'someone-else' }),
    'a token from another issuer': () => forge({ iss: 'not-model-vault' }),
    'a token of a session that does not exist': () => forge({ sid: crypto.randomUUID() }),
    'a token naming another user than its session': () => forge({ sub: crypto.randomUUID() }),
  }

  for (const [name, build] of Object.entries(flawed)) {
    it(`every protected operation refuses ${name} with 401 invalid_token`, async () => {
      const token = await build()
      for (const op of protectedOperations) {
        const reply = await callOperation(vault.baseUrl, op, token)
        expect(reply.status, `${op.method} ${op.path}`).toBe(401)
        expectInvalidTokenFrom(op, reply)
      }
    })
  }
})

describe('signing key rotation with VAULT_JWT_KEY_FILE', () => {
  it('the first key signs; keys listed later still verify; a key removed from the file no longer does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vault-keys-'))
    const keyFile = join(dir, 'jwt-keys')
    const [oldKey, newKey] = [
      'old-signing-key-0123456789abcdefghijklmnop',
      'new-signing-key-0123456789abcdefghijklmnop',
    ]
    const kid = (secret: string) => sha256Hex(secret).slice(0, 16)
    await writeFile(keyFile, `${oldKey}\n${newKey}\n`)
    const env = { ...adminEnv, VAULT_JWT_KEY_FILE: keyFile }
    const rotating = await startTestVault(env)
    const started: { close(): Promise<void> }[] = []
    try {
      const before = await signIn(rotating.baseUrl, admin)
      expect(decodeProtectedHeader(before.access_token).kid).toBe(kid(oldKey))
      expect((await getMe(rotating.baseUrl, before.access_token)).status).toBe(200)

      // Rotate: the new key moves to the top, the old one stays below it.
      await writeFile(keyFile, `${newKey}\n${oldKey}\n`)
      const rotated = await startTestVault(env, { shareWith: rotating })
      started.push(rotated)
      expect((await getMe(rotated.baseUrl, before.access_token)).status).toBe(200)
      const after = await refresh(rotated.baseUrl, before.refresh_token)
      expect(after.status).toBe(200)
      expect(decodeProtectedHeader(after.body.access_token).kid).toBe(kid(newKey))

      // Retire the old key: its tokens stop verifying, the new key's go on.
      await writeFile(keyFile, `${newKey}\n`)
      const retired = await startTestVault(env, { shareWith: rotating })
      started.push(retired)
      expectInvalidToken(await getMe(retired.baseUrl, before.access_token))
      expect((await getMe(retired.baseUrl, after.body.access_token)).status).toBe(200)
    } finally {
      for (const app of started) await app.close()
      await rotating.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
