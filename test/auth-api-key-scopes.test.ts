import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  callOperation,
  createApiKeyAs,
  expectInvalidToken,
  expectProblem,
  expectRefusal,
  getMe,
  listOperations,
  login,
  type Operation,
  type Reply,
  refresh,
  signIn,
  uniqueName,
} from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

/** Scoped API keys: a key acts with the intersection of its scopes and its owner's role. */
let vault: TestVault
let rootToken: string
let protectedOperations: Operation[]
beforeAll(async () => {
  // Some tests change keys in the database directly, as another process would: reading it on every
  // request keeps them about the checks, not the recheck window (test/auth-revocation-bound.test.ts).
  vault = await startTestVault({ ...adminEnv, VAULT_SESSION_RECHECK_MS: '0' })
  rootToken = (await signIn(vault.baseUrl, admin)).access_token
  protectedOperations = (await listOperations(vault.baseUrl)).filter((op) => op.security?.length !== 0)
})
afterAll(async () => vault?.close())

/** Keys of root, the superuser: whatever refuses them, it is not the role. */
const rootKey = (scopes: string[], expiresAt?: string) =>
  createApiKeyAs(vault.baseUrl, rootToken, uniqueName('scoped'), scopes, expiresAt)
const asKey = (key: string) => ({ 'X-Api-Key': key })
const label = (op: Operation) => `${op.method} ${op.path}`
const accepting = (scope: string) =>
  protectedOperations.filter((op) => op.scopes?.length === 0 || op.scopes?.includes(scope)).map(label)

/** `at`: an operation of the document (the OctoPrint shim answers in its own shape), or a name for the call. */
function expectInsufficientScope(reply: Reply, needed: string[], at: Operation | string) {
  const where = typeof at === 'string' ? at : label(at)
  expect(reply.status, `${where}: ${JSON.stringify(reply.body)}`).toBe(403)
  const refusal =
    typeof at === 'string'
      ? expectProblem(reply, 403, 'insufficient_scope')
      : expectRefusal(at, reply, 403, 'insufficient_scope')
  for (const scope of needed) expect(refusal.detail ?? refusal.error, where).toContain(`\`${scope}\``)
  expect(reply.headers.get('www-authenticate'), where).toBe(
    `Bearer realm="model-vault", error="insufficient_scope", scope="${needed.join(' ')}"`,
  )
}

describe('the OpenAPI document states the scopes', () => {
  it('every protected operation names the scopes that will do, and the policy holds', () => {
    for (const op of protectedOperations)
      for (const scope of op.scopes ?? ['missing'])
        expect(['read', 'upload', 'print', 'manage', 'full']).toContain(scope)
    // Any key may ask who it is, sign out, and pass a slicer's OctoPrint "Test".
    const shimInfo = ['version', 'server', 'settings'].flatMap((what) => [
      `GET /octoprint/api/${what}`,
      `GET /octoprint/printers/{id}/api/${what}`,
    ])
    const anyScope = protectedOperations.filter((op) => op.scopes?.length === 0).map(label)
    expect(anyScope.sort()).toEqual(['POST /api/v1/auth/logout', 'GET /api/v1/me', ...shimInfo].sort())
    // A hook's key can do nothing but upload (printing through the shim also needs print).
    expect(accepting('upload').filter((op) => !anyScope.includes(op))).toEqual([
      'POST /api/v1/ingest',
      'PUT /api/v1/ingest/{filename}',
      'POST /octoprint/api/files/local',
      'POST /octoprint/printers/{id}/api/files/local',
    ])
    // Reading is every GET but the keys, the accounts and the backups, a download link to a file or a package (a
    // read for later) and a package of several models (a POST only because its ids do not fit in a URL).
    const fullOnlyPrefixes = ['/api/v1/api-keys', '/api/v1/admin/', '/api/v1/backups', '/api/v1/maintenance/']
    // A webhook's URL is itself a secret (a Discord or ntfy URL lets whoever has it post): reading them takes manage.
    const webhookReads = ['GET /api/v1/webhooks', 'GET /api/v1/webhooks/{id}', 'GET /api/v1/webhooks/{id}/deliveries']
    const readingPosts = [
      'POST /api/v1/files/{id}/download-link',
      'POST /api/v1/models/package',
      'POST /api/v1/models/{id}/package-link',
    ]
    expect(accepting('read')).toEqual(
      protectedOperations
        .filter(
          (op) =>
            op.scopes?.length === 0 ||
            readingPosts.includes(label(op)) ||
            (op.method === 'GET' &&
              !fullOnlyPrefixes.some((p) => op.path.startsWith(p)) &&
              !webhookReads.includes(label(op))),
        )
        .map(label),
    )
    const fullOnly = protectedOperations.filter((op) => op.scopes?.join() === 'full').map(label)
    for (const op of protectedOperations.filter((op) => fullOnlyPrefixes.some((p) => op.path.startsWith(p))))
      expect(fullOnly).toContain(label(op))
    expect(fullOnly).toContain('POST /api/v1/me/password')
    // Printing reads the printers, their providers, the print queue and the print history too, and reviews
    // a print (verdict, note, photo); it changes nothing else.
    const printing = ['/printers', '/printer-providers', '/dispatches', 'GET /api/v1/queue', '/print-runs']
    expect(
      accepting('print').filter((op) => !anyScope.includes(op) && !printing.some((part) => op.includes(part))),
    ).toEqual([])
    expect(accepting('print')).toContain('POST /api/v1/printers/{id}/send')
    // Pausing, resuming and cancelling a running print are sending to printers too; read alone cannot.
    for (const control of ['pause', 'resume', 'cancel']) {
      expect(accepting('print')).toContain(`POST /api/v1/printers/{id}/${control}`)
      expect(accepting('read')).not.toContain(`POST /api/v1/printers/{id}/${control}`)
    }
    expect(accepting('print')).not.toContain('DELETE /api/v1/printers/{id}')
    expect(accepting('print')).toContain('PUT /api/v1/print-runs/{id}/photo')
    expect(accepting('read')).toContain('GET /api/v1/models/{id}/print-runs.csv')
    expect(accepting('read')).not.toContain('PATCH /api/v1/print-runs/{id}')
    expect(accepting('manage')).toContain('DELETE /api/v1/models/{id}')
    expect(accepting('manage').filter((op) => op.startsWith('GET ') && !anyScope.includes(op))).toEqual(webhookReads)
  })
})

describe.each(['read', 'upload', 'print', 'manage'])('a key with only the %s scope', (scope) => {
  it('is refused with 403 insufficient_scope on every operation outside it, and not for its scope inside it', async () => {
    const key = await rootKey([scope])
    for (const op of protectedOperations) {
      const reply = await callOperation(vault.baseUrl, op, undefined, asKey(key.key))
      if (accepting(scope).includes(label(op))) {
        expect(reply.status, label(op)).not.toBe(401)
        expect(reply.body?.code, label(op)).not.toBe('insufficient_scope')
      } else expectInsufficientScope(reply, op.scopes!, op)
    }
  })
})

describe('a full key', () => {
  it('is refused on no operation for its scope', async () => {
    const key = await rootKey(['full'])
    for (const op of protectedOperations) {
      const reply = await callOperation(vault.baseUrl, op, undefined, asKey(key.key))
      expect(reply.status, label(op)).not.toBe(401)
      expect(reply.body?.code, label(op)).not.toBe('insufficient_scope')
    }
  })
})

describe("a slicer hook's upload-only key", () => {
  it('uploads (a duplicate answers 200 duplicate) but cannot read, delete a model, list backups or restore', async () => {
    const key = await rootKey(['upload'])
    const cube = binaryCube(17)
    const first = await upload(vault.baseUrl, key.key, 'hook-cube.stl', cube)
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    const again = await upload(vault.baseUrl, key.key, 'hook-cube.stl', cube)
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(again.body.duplicate).toBe(true)
    const modelId = first.body.model.id as string

    const headers = asKey(key.key)
    expectInsufficientScope(
      await call(vault.baseUrl, 'DELETE', `/api/v1/models/${modelId}`, { headers }),
      ['manage'],
      'delete',
    )
    expectInsufficientScope(await call(vault.baseUrl, 'GET', `/api/v1/models/${modelId}`, { headers }), ['read'], 'get')
    expectInsufficientScope(await call(vault.baseUrl, 'GET', '/api/v1/backups', { headers }), ['full'], 'backups')
    expectInsufficientScope(
      await call(vault.baseUrl, 'POST', '/api/v1/backups/any-backup/restore', { headers, json: {} }),
      ['full'],
      'restore',
    )
    expectInsufficientScope(
      await call(vault.baseUrl, 'POST', '/api/v1/api-keys', { headers, json: { name: 'escalate', scopes: ['full'] } }),
      ['full'],
      'new key',
    )
    // The model is still there, and the key can tell what it is.
    expect((await call(vault.baseUrl, 'GET', `/api/v1/models/${modelId}`, { token: rootToken })).status).toBe(200)
    const me = await call(vault.baseUrl, 'GET', '/api/v1/me', { headers })
    expect(me.body).toMatchObject({ api_key_id: key.id, session_id: null, scopes: ['upload'] })
  })

  it('names the scopes the key has in the refusal', async () => {
    const key = await rootKey(['upload', 'print'])
    const reply = await call(vault.baseUrl, 'GET', '/api/v1/backups', { headers: asKey(key.key) })
    expectInsufficientScope(reply, ['full'], 'backups')
    expect(reply.body.detail).toContain('the key used has `upload`, `print`')
  })
})

describe('a session opened with a scoped key', () => {
  it('keeps the scopes of its key, across a refresh', async () => {
    const key = await rootKey(['read'])
    const session = await signIn(vault.baseUrl, { username: admin.username, api_key: key.key })
    expect((await getMe(vault.baseUrl, session.access_token)).body.scopes).toEqual(['read'])
    expect((await call(vault.baseUrl, 'GET', '/api/v1/models', { token: session.access_token })).status).toBe(200)
    expectInsufficientScope(
      await call(vault.baseUrl, 'GET', '/api/v1/backups', { token: session.access_token }),
      ['full'],
      'backups',
    )
    const renewed = await refresh(vault.baseUrl, session.refresh_token)
    expect(renewed.status).toBe(200)
    expectInsufficientScope(
      await call(vault.baseUrl, 'DELETE', '/api/v1/models/any-model', { token: renewed.body.access_token }),
      ['manage'],
      'delete',
    )
  })

  it('a password sign-in has every scope', async () => {
    expect((await getMe(vault.baseUrl, rootToken)).body.scopes).toEqual(['full'])
  })
})

describe('creating a scoped key', () => {
  const create = (json: unknown) => call(vault.baseUrl, 'POST', '/api/v1/api-keys', { token: rootToken, json })
  const fieldErrors = (reply: Reply) =>
    expectProblem(reply, 422, 'validation_failed').errors.map((e: { path: string }) => e.path)

  it('lists the scopes, in a fixed order without repeats, and the expiry', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString()
    const key = await rootKey(['print', 'read', 'print'], expiresAt)
    expect(key).toMatchObject({ scopes: ['read', 'print'], expires_at: expiresAt })
    const listed = (await call(vault.baseUrl, 'GET', '/api/v1/api-keys', { token: rootToken })).body.items
    expect(listed.find((item: { id: string }) => item.id === key.id)).toMatchObject({
      scopes: ['read', 'print'],
      expires_at: expiresAt,
    })
    // `full` holds the rest.
    expect((await rootKey(['upload', 'full'])).scopes).toEqual(['full'])
  })

  it('refuses no scopes, an unknown scope, and an expiry that is not a time in the future', async () => {
    expect(fieldErrors(await create({ name: uniqueName('k') }))).toEqual(['body.scopes'])
    expect(fieldErrors(await create({ name: uniqueName('k'), scopes: [] }))).toEqual(['body.scopes'])
    expect(fieldErrors(await create({ name: uniqueName('k'), scopes: ['delete'] }))).toEqual(['body.scopes.0'])
    expect(fieldErrors(await create({ name: uniqueName('k'), scopes: 'upload' }))).toEqual(['body.scopes'])
    const past = new Date(Date.now() - 1000).toISOString()
    expect(fieldErrors(await create({ name: uniqueName('k'), scopes: ['read'], expires_at: past }))).toEqual([
      'body.expires_at',
    ])
    expect(fieldErrors(await create({ name: uniqueName('k'), scopes: ['read'], expires_at: 'tomorrow' }))).toEqual([
      'body.expires_at',
    ])
  })
})

describe('an expired key', () => {
  it('is refused on its own, at sign-in and in the sessions opened with it, saying when it expired', async () => {
    const key = await rootKey(['upload'], new Date(Date.now() + 3_600_000).toISOString())
    const session = await signIn(vault.baseUrl, { username: admin.username, api_key: key.key })
    expect((await getMe(vault.baseUrl, session.access_token)).status).toBe(200)

    const expiredAt = new Date(Date.now() - 1000).toISOString()
    await vault.deps.database.db
      .updateTable('api_keys')
      .set({ expires_at: expiredAt })
      .where('id', '=', key.id)
      .execute()

    const alone = await call(vault.baseUrl, 'GET', '/api/v1/me', { headers: asKey(key.key) })
    expectInvalidToken(alone)
    expect(alone.body.detail).toContain(`The API key expired at ${expiredAt}`)
    const signingIn = await login(vault.baseUrl, { username: admin.username, api_key: key.key })
    expectProblem(signingIn, 401, 'invalid_credentials')
    expect(signingIn.body.detail).toContain(`The API key expired at ${expiredAt}`)
    expectInvalidToken(await getMe(vault.baseUrl, session.access_token))
    expectProblem(await refresh(vault.baseUrl, session.refresh_token), 401, 'invalid_refresh_token')

    // Someone else's key that expired still reads as a wrong credential: nothing to learn from it.
    const stranger = await login(vault.baseUrl, { username: 'nobody-at-all', api_key: key.key })
    expectProblem(stranger, 401, 'invalid_credentials')
    expect(stranger.body.detail).not.toContain('expired')
  })
})
