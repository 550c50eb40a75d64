import { type ServerType, serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeHeaderAccess } from '../src/adapters/node/node-header-access.js'
import { fetchHeaderAccess } from '../src/routes/header-access.js'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { rawRequest } from './support/raw-http.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// Node's way must answer exactly what the Fetch API's `Headers` would, for any request a client can send.
describe('reading and setting headers on Node', () => {
  const names = ['x-api-key', 'x-thing', 'authorization', 'x-absent']
  const app = new Hono()
    .get('/echo', (c) => {
      nodeHeaderAccess.setOnAnswer(c, 'X-Stamp', 'one')
      return c.json(names.map((name) => [nodeHeaderAccess.read(c, name), fetchHeaderAccess.read(c, name)]))
    })
    .get('/fails', (c) => {
      nodeHeaderAccess.setOnAnswer(c, 'X-Stamp', 'one')
      throw new Error('handler failed')
    })
    .onError((_error, c) => c.json({ failed: true }, 500))
  let server: ServerType
  let baseUrl: string
  beforeAll(async () => {
    baseUrl = await new Promise((resolve) => {
      server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
        resolve(`http://127.0.0.1:${info.port}`),
      )
    })
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('finds a header in any case, joins repeats as Headers.get does, and says absent as it does', async () => {
    const reply = await rawRequest(
      baseUrl,
      'GET /echo HTTP/1.1\r\nHost: x\r\nX-API-KEY: key-1\r\nX-Thing: a\r\nx-thing:  b \r\nAuthorization: Bearer one\r\n' +
        'authorization: Bearer two\r\nConnection: close\r\n\r\n',
    )
    expect(reply.status).toBe(200)
    const pairs = JSON.parse(reply.body) as [string | null, string | null][]
    for (const [node, fetched] of pairs) expect(node).toEqual(fetched)
    expect(pairs.map(([node]) => node)).toEqual(['key-1', 'a, b', 'Bearer one, Bearer two', null])
    expect(reply.headers['x-stamp']).toBe('one')
  })

  it('sets an answer header once, on error answers too', async () => {
    const ok = await fetch(`${baseUrl}/echo`)
    expect(ok.headers.get('x-stamp')).toBe('one')
    const failed = await fetch(`${baseUrl}/fails`)
    expect(failed.status).toBe(500)
    expect(failed.headers.get('x-stamp')).toBe('one')
  })

  it('falls back to the Fetch API outside @hono/node-server (app.request)', async () => {
    const reply = await app.request('/echo', { headers: { 'X-Thing': 'c', 'x-api-key': 'key-2' } })
    expect(reply.headers.get('x-stamp')).toBe('one')
    expect(((await reply.json()) as [string | null][]).map(([node]) => node)).toEqual(['key-2', 'c', null, null])
  })
})

describe('credentials read the Node way', () => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    token = (await signIn(vault.baseUrl, admin)).access_token
  })
  afterAll(() => vault.close())

  const me = (headers: string) =>
    rawRequest(vault.baseUrl, `GET /api/v1/me HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`)

  it('accepts the token in any header case, and refuses two Authorization headers as Headers would join them', async () => {
    expect((await me(`aUtHoRiZaTiOn: Bearer ${token}\r\n`)).status).toBe(200)
    const twice = await me(`Authorization: Bearer ${token}\r\nAuthorization: Bearer ${token}\r\n`)
    expect(twice.status).toBe(401)
    expect(JSON.parse(twice.body)).toMatchObject({ code: 'missing_token' })
    expect(twice.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})
