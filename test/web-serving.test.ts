import { once } from 'node:events'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { type ServerType, serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeUiAssets } from '../src/adapters/node/ui-assets.js'
import { createApp } from '../src/app.js'
import type { Deps } from '../src/core/deps.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/** A UI build as Vite lays it out, with a secret beside it that no request may reach. */
const indexHtml =
  '<!doctype html><html><head><base href="/" /><script src="./assets/app-1a2b3c.js"></script></head></html>'
let workDir: string
let uiDir: string
let vault: TestVault
const servers: ServerType[] = []

async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<string> {
  const server = serve({ fetch, hostname: '127.0.0.1', port: 0 })
  servers.push(server)
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** The vault with its UI read from `dir` (and other deps overridden), over a real socket. */
const serveVault = (overrides: Partial<Deps> = {}, dir = uiDir) =>
  listen(createApp({ ...vault.deps, getUiAsset: createNodeUiAssets(dir), ...overrides }).fetch)

/** A GET whose path goes out exactly as written: `fetch` would normalise `..` and `%2e%2e` away. */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers: { Accept: 'text/html' } }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A GET with this `Accept-Encoding` (or none), its body as it came: `fetch` would decode it. */
function encodedGet(origin: string, path: string, acceptEncoding?: string) {
  const { hostname, port } = new URL(origin)
  const headers = acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding }
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}

const page = (url: string) => fetch(url, { headers: { Accept: 'text/html,application/xhtml+xml' } })

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'vault-ui-'))
  uiDir = join(workDir, 'web')
  await mkdir(join(uiDir, 'assets'), { recursive: true })
  await writeFile(join(uiDir, 'index.html'), indexHtml)
  await writeFile(join(uiDir, 'assets', 'app-1a2b3c.js'), 'console.log("app")')
  // The build's precompressed copies (web/precompress-plugin.ts).
  await writeFile(join(uiDir, 'assets', 'app-1a2b3c.js.br'), brotliCompressSync('console.log("app")'))
  await writeFile(join(uiDir, 'assets', 'app-1a2b3c.js.gz'), gzipSync('console.log("app")'))
  await writeFile(join(uiDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  await writeFile(join(workDir, 'secret.txt'), 'not for the web')
  vault = await startTestVault()
})

afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve))
  await vault?.close()
  await rm(workDir, { recursive: true, force: true })
})

describe('the web UI is served at /', () => {
  it('index.html is never reused without asking, and names the vault root as its base', async () => {
    const origin = await serveVault()
    const res = await page(`${origin}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(await res.text()).toContain('<base href="/" />')
  })

  it('the page and the API reference may be framed by their own origin only', async () => {
    const origin = await serveVault()
    for (const path of ['/', '/library/some-model', '/docs', '/redoc']) {
      const res = await page(`${origin}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('x-frame-options'), path).toBe('SAMEORIGIN')
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'self'")
    }
  })

  it('hashed assets are cached for a year as immutable; other files are revalidated', async () => {
    const origin = await serveVault()
    const asset = await fetch(`${origin}/assets/app-1a2b3c.js`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(await asset.text()).toBe('console.log("app")')
    const icon = await fetch(`${origin}/favicon.svg`)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    expect(icon.headers.get('cache-control')).toBe('no-cache')
  })

  it("serves an asset as the build's Brotli or gzip copy to a client that takes it, else as it is", async () => {
    const origin = await serveVault()
    const path = '/assets/app-1a2b3c.js'
    const brotli = await encodedGet(origin, path, 'gzip, deflate, br')
    expect(brotli.headers).toMatchObject({ 'content-encoding': 'br', vary: 'Accept-Encoding' })
    expect(brotli.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(brotliDecompressSync(brotli.body).toString()).toBe('console.log("app")')
    const gzip = await encodedGet(origin, path, 'gzip;q=1, br;q=0')
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.body).toString()).toBe('console.log("app")')
    for (const refusing of [undefined, 'identity', 'br;q=0, gzip;q=0', 'deflate']) {
      const plain = await encodedGet(origin, path, refusing)
      expect(plain.headers['content-encoding'], String(refusing)).toBeUndefined()
      expect(plain.body.toString()).toBe('console.log("app")')
    }
    // A file the build holds no copy of is served as it is, whatever the client takes.
    const icon = await encodedGet(origin, '/favicon.svg', 'br, gzip')
    expect(icon.headers['content-encoding']).toBeUndefined()
    expect(icon.body.toString()).toContain('<svg')
  })

  it('a deep link that is a page request gets index.html, so client-side routes load', async () => {
    const origin = await serveVault()
    const res = await page(`${origin}/models/3f1c2a9e?q=benchy`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('<base href="/" />')
  })

  it('a missing asset, or a non-page request for an unknown path, is a 404 problem rather than the page', async () => {
    const origin = await serveVault()
    const missingAsset = await page(`${origin}/assets/app-000000.js`)
    expect(missingAsset.status).toBe(404)
    expect(missingAsset.headers.get('content-type')).toBe('application/problem+json')
    const notAPage = await fetch(`${origin}/models/3f1c2a9e`, { headers: { Accept: 'application/json' } })
    expect(notAPage.status).toBe(404)
    expect((await notAPage.json()).code).toBe('not_found')
  })

  it('never shadows the API or its reference, and other methods on unknown paths stay 404', async () => {
    const origin = await serveVault()
    const api = await page(`${origin}/api/v1/no-such-thing`)
    expect(api.status).toBe(404)
    expect(api.headers.get('content-type')).toBe('application/problem+json')
    const docsUnknown = await page(`${origin}/docs/no-such-page`)
    expect(docsUnknown.status).toBe(404)
    expect(docsUnknown.headers.get('content-type')).toBe('application/problem+json')
    const docs = await page(`${origin}/docs`)
    expect(await docs.text()).toContain('swagger-ui')
    expect(await (await page(`${origin}/redoc`)).text()).toContain('redoc.standalone.js')
    expect((await (await page(`${origin}/openapi.json`)).json()).openapi).toBe('3.1.0')
    expect((await fetch(`${origin}/some/page`, { method: 'POST' })).status).toBe(404)
    expect((await fetch(`${origin}/api/v1/no-such-thing`, { method: 'POST' })).status).toBe(404)
  })

  it('mounted under a prefix, the base and assets follow the prefix at every depth', async () => {
    const origin = await listen(
      new Hono().route('/vault', createApp({ ...vault.deps, getUiAsset: createNodeUiAssets(uiDir) })).fetch,
    )
    for (const path of ['/vault/', '/vault/models/3f1c2a9e', '/vault/settings/storage']) {
      const res = await page(`${origin}${path}`)
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('<base href="/vault/" />')
    }
    const asset = await fetch(`${origin}/vault/assets/app-1a2b3c.js`)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await fetch(`${origin}/vault/api/v1/health`)).status).toBe(200)
    expect((await page(`${origin}/vault/api/v1/nope`)).headers.get('content-type')).toBe('application/problem+json')
  })

  it('behind VAULT_PUBLIC_URL, the base is the public address', async () => {
    const origin = await serveVault({ publicUrl: 'https://vault.example.com/makers' })
    expect(await (await page(`${origin}/library`)).text()).toContain(
      '<base href="https://vault.example.com/makers/" />',
    )
  })

  it('no path reaches a file outside the build', async () => {
    const origin = await serveVault()
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/assets%5c..%5c..%5csecret.txt',
      '/%2e%2e%2fsecret.txt',
    ]) {
      const res = await rawGet(origin, path)
      expect(res.body, path).not.toContain('not for the web')
    }
    const getAsset = createNodeUiAssets(uiDir)
    for (const path of [
      '../secret.txt',
      'assets/../../secret.txt',
      '..\\secret.txt',
      'assets',
      '',
      'a//b',
      '/etc/passwd',
    ]) {
      expect(await getAsset(path), path).toBeUndefined()
    }
  })

  it('when the UI is not built, / says how to build it instead of failing', async () => {
    const origin = await serveVault({}, join(workDir, 'not-built'))
    const res = await page(`${origin}/`)
    expect(res.status).toBe(404)
    const body = await res.json()
    expect(body.code).toBe('ui_not_built')
    expect(body.detail).toContain('npm run build')
    expect((await fetch(`${origin}/api/v1/health`)).status).toBe(200)
  })
})
