import { describe, expect, it } from 'vitest'
import { createTestVault, setUpInProcessSuite } from './support/test-vault.js'

const suite = setUpInProcessSuite()

/** The directives of a Content-Security-Policy header, by name. */
const directives = (header: string | null) =>
  new Map(
    (header ?? '').split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/)
      return [name, values] as const
    }),
  )

describe('security headers', () => {
  it.each(['/', '/docs', '/redoc', '/openapi.json', '/api/v1/health', '/api/v1/me', '/api/v1/no-such-thing'])(
    '%s carries the Content-Security-Policy, nosniff, no-referrer and same-origin framing',
    async (path) => {
      const res = await suite.vault.app.request(path, { headers: { Accept: 'text/html' } })
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN')
      const csp = directives(res.headers.get('content-security-policy'))
      expect(csp.get('frame-ancestors')).toEqual(["'self'"])
      expect(csp.get('default-src')).toEqual(["'self'"])
      expect(csp.get('script-src')).toEqual(["'self'"])
      expect(csp.get('object-src')).toEqual(["'none'"])
      // HSTS belongs to the proxy that terminates TLS.
      expect(res.headers.get('strict-transport-security')).toBeNull()
    },
  )

  it('the pages start their viewers from the vault own files: no inline script the policy would refuse', async () => {
    for (const path of ['/docs', '/redoc']) {
      const html = await (await suite.vault.app.request(path)).text()
      expect(html, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    }
    const init = await suite.vault.app.request('/docs/assets/swagger-init.js')
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await init.text()).toContain("url: 'openapi.json'")
  })

  it('the ReDoc script served asks no CDN for its footer logo', async () => {
    const script = await (await suite.vault.app.request('/docs/assets/redoc.standalone.js')).text()
    expect(script).not.toContain('cdn.redoc.ly')
  })

  it('with VAULT_PUBLIC_URL on another origin, the policy allows that origin as well', async () => {
    const vault = await createTestVault({ VAULT_PUBLIC_URL: 'https://vault.example.org/files' })
    try {
      const csp = directives((await vault.app.request('/api/v1/health')).headers.get('content-security-policy'))
      expect(csp.get('script-src')).toEqual(["'self'", 'https://vault.example.org'])
      expect(csp.get('base-uri')).toEqual(["'self'", 'https://vault.example.org'])
    } finally {
      await vault.close()
    }
  })
})
