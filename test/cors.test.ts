import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, inProcessAuthorization } from './support/accounts.js'
import { createTestVault, type InProcessVault } from './support/test-vault.js'

const allowed = 'https://app.example.org'
const preflight = (origin: string, method = 'POST') => ({
  method: 'OPTIONS',
  headers: {
    Origin: origin,
    'Access-Control-Request-Method': method,
    'Access-Control-Request-Headers': 'authorization, content-type',
  },
})

let vault: InProcessVault
let plain: InProcessVault
beforeAll(async () => {
  ;[vault, plain] = await Promise.all([
    createTestVault({ ...adminEnv, VAULT_CORS_ORIGINS: `${allowed}, http://localhost:5173` }),
    createTestVault(adminEnv),
  ])
})
afterAll(async () => Promise.all([vault?.close(), plain?.close()]))

describe('CORS', () => {
  it('a preflight from a listed origin answers 204 with the origin, the methods and the headers asked for', async () => {
    const res = await vault.app.request('/api/v1/models', preflight(allowed))
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed)
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type')
    expect(res.headers.get('access-control-max-age')).toBe('600')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    expect(res.headers.get('vary')).toContain('Origin')
  })

  it('a listed origin reads the answer and the headers the API documents', async () => {
    const authorization = await inProcessAuthorization(vault)
    const res = await vault.app.request('/api/v1/me', { headers: { Origin: allowed, Authorization: authorization } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed)
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
    expect(res.headers.get('vary')).toContain('Origin')
  })

  it('an origin not on the list gets no CORS header, and its preflight is refused as before', async () => {
    const res = await vault.app.request('/api/v1/models', preflight('https://evil.example'))
    expect(res.status).toBe(405)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    for (const [name] of res.headers) expect(name).not.toMatch(/^access-control-/)
    const get = await vault.app.request('/api/v1/health', { headers: { Origin: 'https://evil.example' } })
    for (const [name] of get.headers) expect(name).not.toMatch(/^access-control-/)
  })

  it('is off by default: no origin gets CORS headers', async () => {
    const res = await plain.app.request('/api/v1/models', preflight(allowed))
    expect(res.status).toBe(405)
    for (const [name] of res.headers) expect(name).not.toMatch(/^access-control-/)
  })
})
