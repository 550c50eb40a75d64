import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeUiAssets } from '../src/adapters/node/ui-assets.js'
import { createApp } from '../src/app.js'
import { setUpInProcessSuite } from './support/test-vault.js'

const suite = setUpInProcessSuite()
const get = (path: string, acceptEncoding?: string) =>
  suite.vault.app.request(path, { headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} })

describe('the API reference is sent compressed', () => {
  it('/openapi.json is gzip for a client that takes it, and the same document as sent plain', async () => {
    const plain = await get('/openapi.json')
    expect(plain.headers.get('content-encoding')).toBeNull()
    const document = await plain.json()
    const zipped = await get('/openapi.json', 'gzip, deflate, br')
    expect(zipped.status).toBe(200)
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    const bytes = new Uint8Array(await zipped.arrayBuffer())
    expect(bytes.byteLength).toBeLessThan(JSON.stringify(document).length / 5)
    expect(JSON.parse(gunzipSync(bytes).toString('utf8'))).toEqual(document)
  })

  it.each([
    '/docs/assets/swagger-ui-dist/swagger-ui-bundle.js',
    '/docs/assets/swagger-ui-dist/swagger-ui.css',
    '/docs/assets/redoc.standalone.js',
  ])('%s: Brotli when taken, else gzip, else as it is; the same bytes each way', async (path) => {
    const plain = await get(path)
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(plain.headers.get('vary')).toContain('Accept-Encoding')
    const original = Buffer.from(await plain.arrayBuffer())

    const br = await get(path, 'gzip, deflate, br')
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.headers.get('cache-control')).toBe('public, max-age=86400')
    const brBytes = Buffer.from(await br.arrayBuffer())
    expect(brBytes.byteLength).toBeLessThan(original.byteLength / 3)
    expect(brotliDecompressSync(brBytes).equals(original)).toBe(true)

    const gzip = await get(path, 'gzip')
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).equals(original)).toBe(true)

    expect((await get(path, 'br;q=0, gzip;q=0')).headers.get('content-encoding')).toBeNull()
  })
})

describe('/favicon.ico', () => {
  let uiDir: string
  beforeAll(async () => {
    uiDir = await mkdtemp(join(tmpdir(), 'vault-favicon-'))
    await writeFile(join(uiDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  })
  afterAll(() => rm(uiDir, { recursive: true, force: true }))

  it('answers with the UI icon (SVG) where the UI is built', async () => {
    const app = createApp({ ...suite.vault.deps, getUiAsset: createNodeUiAssets(uiDir) })
    const res = await app.request('/favicon.ico')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(await res.text()).toContain('<svg')
  })

  it('answers 204 where there is no UI build, so browsers stop asking', async () => {
    const app = createApp({ ...suite.vault.deps, getUiAsset: createNodeUiAssets(join(uiDir, 'none')) })
    const res = await app.request('/favicon.ico')
    expect(res.status).toBe(204)
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400')
  })
})
