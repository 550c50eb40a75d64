import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { type RawReply, rawRequest } from './support/raw-http.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { putRaw, upload } from './support/uploads.js'

const bound = 16 * 1024
let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault({ ...adminEnv, VAULT_MAX_BODY_BYTES: String(bound) })
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: vault\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`

/** `count` chunks of `size` bytes of a JSON string, in chunked framing, without the final chunk. */
function* jsonChunks(count: number, size: number) {
  yield `${(11).toString(16)}\r\n{"username"\r\n`
  for (let i = 0; i < count; i++) yield `${size.toString(16)}\r\n${'x'.repeat(size)}\r\n`
}

function expectTooLarge(reply: RawReply) {
  expect(reply.status, reply.body).toBe(413)
  expect(reply.headers['content-type']).toBe('application/problem+json')
  expect(reply.headers.connection).toBe('close')
  const body = JSON.parse(reply.body)
  expect(body.code).toBe('payload_too_large')
  expect(body.detail).toContain(`${bound} bytes (VAULT_MAX_BODY_BYTES)`)
}

describe('every JSON body is bounded by VAULT_MAX_BODY_BYTES before it is read', () => {
  it('sign-in with a declared 300 MiB body is 413 at once, with nothing of the body sent', async () => {
    const reply = await rawRequest(
      vault.baseUrl,
      head('POST', '/api/v1/auth/login', {
        'Content-Type': 'application/json',
        'Content-Length': String(300 * 1024 * 1024),
      }),
    )
    expectTooLarge(reply)
  })

  it('sign-in with a chunked body is cut off at the bound with 413', async () => {
    const reply = await rawRequest(
      vault.baseUrl,
      head('POST', '/api/v1/auth/login', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }),
      jsonChunks(64, 1024),
    )
    expectTooLarge(reply)
  })

  it('token refresh is bounded the same way', async () => {
    const reply = await rawRequest(
      vault.baseUrl,
      head('POST', '/api/v1/auth/refresh', { 'Content-Type': 'application/json', 'Content-Length': String(bound + 1) }),
    )
    expectTooLarge(reply)
  })

  it('a protected JSON operation answers a stranger 401 and a signed-in caller 413, neither reading the body', async () => {
    const headers = { 'Content-Type': 'application/json', 'Content-Length': String(64 * 1024 * 1024) }
    const stranger = await rawRequest(vault.baseUrl, head('POST', '/api/v1/collections', headers))
    expect(stranger.status).toBe(401)
    expect(stranger.headers.connection).toBe('close')
    expectTooLarge(
      await rawRequest(
        vault.baseUrl,
        head('POST', '/api/v1/collections', { ...headers, Authorization: `Bearer ${token}` }),
      ),
    )
    expectTooLarge(
      await rawRequest(
        vault.baseUrl,
        head('POST', '/api/v1/collections', {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Transfer-Encoding': 'chunked',
        }),
        jsonChunks(64, 1024),
      ),
    )
  })

  it('a body just under the bound is read as usual', async () => {
    const name = `c-${'n'.repeat(bound - 200)}`
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name } })
    expect(reply.status).not.toBe(413)
    expect(reply.status).toBeLessThan(500)
    const ok = await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'bounded' } })
    expect(ok.status).toBe(201)
  })

  it('holds inside a parent app that mounts the vault under a prefix', async () => {
    const parent = new Hono().route('/vault', vault.app)
    const chunks = [new TextEncoder().encode('{"username":"'), new Uint8Array(bound).fill(120)]
    const res = await parent.request('/vault/api/v1/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) }),
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect((await res.json()).code).toBe('payload_too_large')
  })

  it('file uploads, raw and multipart, keep VAULT_MAX_UPLOAD_BYTES as their bound', async () => {
    const gcode = (n: number) => `; upload ${n}\n${'G1 X1 Y1\n'.repeat(bound / 4)}`
    const raw = await putRaw(vault.baseUrl, token, 'raw.gcode', gcode(1))
    expect(raw.status, JSON.stringify(raw.body)).toBe(201)
    const form = await upload(vault.baseUrl, token, 'form.gcode', gcode(2))
    expect(form.status, JSON.stringify(form.body)).toBe(201)
  })

  it('a preset import keeps its own 32 MiB bound', async () => {
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/filament-profiles/import', {
      token,
      body: `# not a preset bundle\n${'; comment\n'.repeat(bound / 5)}`,
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(reply.status).toBe(422)
    expect(reply.body.code).toBe('unsupported_preset_file')
  })

  it('the OpenAPI document gives the 413 to operations that take a JSON body', async () => {
    const doc = (await call(vault.baseUrl, 'GET', '/openapi.json')).body
    const tooLarge = (path: string, method: string) => doc.paths[path][method].responses['413']?.description
    expect(tooLarge('/api/v1/auth/login', 'post')).toContain('VAULT_MAX_BODY_BYTES')
    expect(tooLarge('/api/v1/collections', 'post')).toContain('VAULT_MAX_BODY_BYTES')
    expect(tooLarge('/api/v1/ingest', 'post')).toContain('VAULT_MAX_UPLOAD_BYTES')
    expect(tooLarge('/api/v1/collections', 'get')).toBeUndefined()
  })
})
