import { createRoute, z } from '@hono/zod-openapi'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.js'
import { VaultError } from '../src/core/errors.js'
import { admin, adminEnv } from './support/accounts.js'
import { createTestVault, startTestVault, type TestVault } from './support/test-vault.js'

let vault: TestVault
beforeAll(async () => {
  vault = await startTestVault()
})
afterAll(async () => vault.close())

const expectProblem = async (res: Response, status: number, code: string) => {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toBe('application/problem+json')
  const body = await res.json()
  expect(body).toMatchObject({ type: 'about:blank', status, code })
  expect(typeof body.title).toBe('string')
  expect(typeof body.detail).toBe('string')
  expect(body.request_id).toBe(res.headers.get('x-request-id'))
  return body
}

describe('errors are problem+json', () => {
  it('an unknown API route is a 404 problem', async () => {
    const body = await expectProblem(await fetch(`${vault.baseUrl}/api/v1/no-such-thing`), 404, 'not_found')
    expect(body.instance).toBe('/api/v1/no-such-thing')
  })

  it('an unknown route outside the API is a 404 problem too', async () => {
    await expectProblem(await fetch(`${vault.baseUrl}/nope`), 404, 'not_found')
  })

  it('a known path with the wrong method is a 405 problem with an Allow header', async () => {
    const res = await fetch(`${vault.baseUrl}/api/v1/health`, { method: 'DELETE' })
    await expectProblem(res, 405, 'method_not_allowed')
    expect(res.headers.get('allow')).toBe('GET, HEAD')
  })

  it('a known path outside the API with the wrong method is a 405 too, an unknown one a 404', async () => {
    for (const path of ['/openapi.json', '/redoc']) {
      const res = await fetch(`${vault.baseUrl}${path}`, { method: 'PUT' })
      await expectProblem(res, 405, 'method_not_allowed')
      expect(res.headers.get('allow')).toBe('GET, HEAD')
      expect(res.headers.get('x-request-id')).toMatch(/^[\w-]+$/)
    }
    await expectProblem(await fetch(`${vault.baseUrl}/nope`, { method: 'DELETE' }), 404, 'not_found')
  })

  it('HEAD on a GET route works', async () => {
    const res = await fetch(`${vault.baseUrl}/api/v1/health`, { method: 'HEAD' })
    expect(res.status).toBe(200)
  })
})

describe('the shared validation and error path', () => {
  // A probe route on a real app: the same hook, error handler and middleware every route gets.
  const probe = createRoute({
    method: 'post',
    path: '/probe',
    request: {
      body: {
        content: { 'application/json': { schema: z.object({ name: z.string().min(1), count: z.number().int() }) } },
      },
      query: z.object({ limit: z.coerce.number().int().max(100).optional() }),
    },
    responses: { 200: { description: 'ok' } },
  })
  const app = () => {
    const a = createApp(vault.deps)
    a.openapi(probe, (c) => c.json(c.req.valid('json'), 200))
    a.get('/conflict', () => {
      throw new VaultError('maintenance_in_progress', 'Another backup is running.')
    })
    a.get('/boom', () => {
      throw new Error('secret internal detail /var/lib/x')
    })
    return a
  }
  const post = (body: string, query = '') =>
    app().request(`/probe${query}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })

  it('malformed JSON is a 400 problem', async () => {
    await expectProblem(await post('{"name": '), 400, 'malformed_json')
  })

  it('a schema violation is a 422 problem naming each field', async () => {
    const body = await expectProblem(await post('{"name": "", "count": 1.5}'), 422, 'validation_failed')
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.count', 'body.name'])
  })

  it('a bad query parameter is a 422 problem naming it', async () => {
    const body = await expectProblem(await post('{"name":"a","count":1}', '?limit=1000'), 422, 'validation_failed')
    expect(body.errors).toEqual([expect.objectContaining({ path: 'query.limit' })])
  })

  it('a domain error keeps its status and code', async () => {
    await expectProblem(await app().request('/conflict'), 409, 'maintenance_in_progress')
  })

  it('an unexpected failure is a 500 problem without message or stack, logged with the request id', async () => {
    const res = await app().request('/boom', { headers: { 'X-Request-Id': 'trace-123' } })
    const body = await expectProblem(res, 500, 'internal_error')
    expect(JSON.stringify(body)).not.toContain('secret internal detail')
    expect(body.detail).toContain('trace-123')
    expect(vault.logs).toContainEqual(expect.objectContaining({ level: 'error', request_id: 'trace-123' }))
  })

  it('keeps speaking problem+json when mounted inside another Hono app', async () => {
    const parent = new Hono()
    parent.route('/vault', app())
    await expectProblem(await parent.request('/vault/api/v1/nope'), 404, 'not_found')
    const res = await parent.request('/vault/api/v1/health', { method: 'POST' })
    await expectProblem(res, 405, 'method_not_allowed')
    expect((await parent.request('/vault/api/v1/health')).status).toBe(200)
  })
})

describe('request ids and logs', () => {
  // Over a real socket, and by the app alone (`app.request()`, as Workers or a parent app mounting the vault call it).
  const servers = {
    'the Node server': (path: string, init?: RequestInit) => fetch(`${vault.baseUrl}${path}`, init),
    'the app alone': (path: string, init?: RequestInit) => vault.app.request(path, init),
  }
  describe.each(Object.entries(servers))('served by %s', (server, request) => {
    const tag = server.replaceAll(' ', '-')
    it('every answer carries one request id, and a sane incoming one is kept', async () => {
      const generated = await request('/api/v1/health')
      expect(generated.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      )
      const kept = await request('/api/v1/health', { headers: { 'X-Request-Id': 'hook-42' } })
      // Exactly once: a header set twice would read "hook-42, hook-42".
      expect(kept.headers.get('x-request-id')).toBe('hook-42')
      for (const hostile of ['bad id<script>', 'a\u00e9b', 'x'.repeat(256), 'one,two']) {
        const replaced = await request('/api/v1/health', { headers: { 'X-Request-Id': hostile } })
        expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
      }
      expect(
        (await request('/api/v1/health', { headers: { 'X-Request-Id': 'x'.repeat(255) } })).headers.get('x-request-id'),
      ).toBe('x'.repeat(255))
    })

    it('the id is the same in the header, the problem and the log line', async () => {
      const res = await request('/api/v1/no-such-path', { headers: { 'X-Request-Id': `problem-${tag}` } })
      const body = await expectProblem(res, 404, 'not_found')
      expect(body.request_id).toBe(`problem-${tag}`)
      expect(vault.logs).toContainEqual(
        expect.objectContaining({ msg: 'request', request_id: `problem-${tag}`, status: 404 }),
      )
    })
  })

  it('writes one JSON log line per request with method, path, status and duration, but not the query', async () => {
    await fetch(`${vault.baseUrl}/api/v1/nothing-here?token=abc`, { headers: { 'X-Request-Id': 'log-check-1' } })
    const line = vault.logs.find((l) => l.request_id === 'log-check-1')
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      path: '/api/v1/nothing-here',
      status: 404,
    })
    expect(typeof line!.duration_ms).toBe('number')
    expect(typeof line!.time).toBe('string')
    expect(line!.client_address).toBe('127.0.0.1')
    expect(line).not.toHaveProperty('user_id')
    expect(JSON.stringify(vault.logs)).not.toContain('token=abc')
  })

  it('a signed-in request line carries the user id, the bytes in and out where declared, and the proxy-given address when the proxy is trusted', async () => {
    const proxied = await createTestVault({ ...adminEnv, VAULT_TRUST_PROXY: 'true' })
    try {
      const body = JSON.stringify(admin)
      const login = await proxied.app.request('/api/v1/auth/login', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
          'X-Forwarded-For': '203.0.113.7',
          'X-Request-Id': 'log-login-1',
        },
        body,
      })
      const { access_token, user } = (await login.json()) as { access_token: string; user: { id: string } }
      expect(proxied.logs.find((l) => l.request_id === 'log-login-1')).toMatchObject({
        client_address: '203.0.113.7',
        bytes_in: body.length,
      })
      await proxied.app.request('/api/v1/me', {
        headers: { Authorization: `Bearer ${access_token}`, 'X-Request-Id': 'log-me-1' },
      })
      expect(user.id).toEqual(expect.any(String))
      expect(proxied.logs.find((l) => l.request_id === 'log-me-1')).toMatchObject({ user_id: user.id, status: 200 })
    } finally {
      await proxied.close()
    }
  })
})
