import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { latestSchemaVersion } from '../src/core/db/migrate.js'
import {
  admin,
  authHeaders,
  call,
  createApiKeyAs,
  login,
  refresh,
  sha256Hex,
  signIn,
  uniqueName,
} from './support/accounts.js'
import { launchChromium, openOfflinePage } from './support/browser.js'
import { ensureBuilt } from './support/built-vault.js'
import { binaryCube, bulkyGcode, putRaw, upload } from './support/uploads.js'
import { startWorkersVault, type WorkersVault } from './support/workers-vault.js'

/**
 * The Workers entry, bundled as `npm run build:workers` bundles it, on the real workerd runtime
 * through Miniflare 4 (its own HTTP listener on loopback), with a local D1 database and R2 bucket
 * and no backup bucket: the acceptance flows a user of a Workers deployment goes through, and what
 * answers 501 there. Backups to a bucket: workers-backup.test.ts.
 */
const maxUploadBytes = 20 * 1024 * 1024
/** Cloudflare's limit on a Worker's compressed size on the free plan (paid: 10 MiB). */
const freePlanLimitBytes = 3 * 1024 * 1024

let workers: WorkersVault
let baseUrl: string

beforeAll(async () => {
  workers = await startWorkersVault({
    VAULT_MAX_UPLOAD_BYTES: String(maxUploadBytes),
    VAULT_WORKERS_ZIP_MAX_BYTES: String(64 * 1024),
  })
  baseUrl = workers.baseUrl
}, 180_000)

afterAll(async () => {
  await workers?.miniflare.dispose()
})

describe('the Workers bundle', () => {
  it('holds no Node-only module and fits the free plan', async () => {
    const { build, buildDir } = workers
    const meta = JSON.parse(await readFile(join(buildDir, 'meta.json'), 'utf8')) as {
      inputs: Record<string, { imports: { path: string }[] }>
    }
    const inputs = Object.keys(meta.inputs)
    expect(inputs.some((input) => input.includes('src/adapters/workers/worker.ts'))).toBe(true)
    // tar-stream (backup archives, in core) is no Node-only module: it reaches the bundle with b4a's browser build.
    const nodeOnly = /node_modules\/(better-sqlite3|pg|pg-[a-z-]+|busboy|@aws-sdk\/[^/]+|@hono\/node-server)\//
    expect(inputs.filter((input) => nodeOnly.test(input))).toEqual([])
    expect(inputs.filter((input) => /src\/adapters\/(node|fs|postgres|s3|printers)\//.test(input))).toEqual([])
    const imports = Object.values(meta.inputs).flatMap((input) => input.imports.map((i) => i.path))
    expect(
      imports.filter((path) => path.startsWith('node:') || ['fs', 'path', 'worker_threads'].includes(path)),
    ).toEqual([])
    console.info(
      `Workers bundle: ${(build.bytes / 1024).toFixed(0)} KiB, ${(build.gzipBytes / 1024).toFixed(0)} KiB gzip (free plan limit 3 MiB, paid 10 MiB)`,
    )
    expect(build.gzipBytes).toBeLessThan(freePlanLimitBytes)
  })
})

describe('the vault on workerd (D1, R2)', () => {
  it('reports health, with what this runtime cannot do', async () => {
    const health = await call(baseUrl, 'GET', '/api/v1/health')
    expect(health.status).toBe(200)
    const { components } = health.body
    expect(components.database).toMatchObject({ status: 'pass', details: { schema_version: latestSchemaVersion } })
    expect(components.storage).toMatchObject({ status: 'pass', details: { kind: 'r2' } })
    expect(components.backup.status).toBe('warn')
    expect(components.backup.reason).toMatch(/Backups and restores on Cloudflare Workers need a backup bucket/)
    expect(components['printer-provider'].status).toBe('warn')
    expect(components['printer-provider'].reason).toMatch(/Printers are not available on Cloudflare Workers/)
  })

  it('signs in, refreshes once per refresh token, and revokes the session when one is reused', async () => {
    expect((await login(baseUrl, { username: admin.username, password: 'wrong-password-here' })).status).toBe(401)
    const tokens = await signIn(baseUrl, admin)
    const rotated = await refresh(baseUrl, tokens.refresh_token)
    expect(rotated.status).toBe(200)
    expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token)
    expect((await call(baseUrl, 'GET', '/api/v1/me', { token: rotated.body.access_token })).status).toBe(200)
    expect((await refresh(baseUrl, tokens.refresh_token)).status).toBe(401)
    // Reuse ended the whole session, the newer pair with it.
    expect((await refresh(baseUrl, rotated.body.refresh_token)).status).toBe(401)
  })

  it('makes API keys that act on their own and sign in', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const key = await createApiKeyAs(baseUrl, token, uniqueName('hook'), ['upload', 'read'])
    const viaKey = await login(baseUrl, { username: admin.username, api_key: key.key })
    expect(viaKey.status).toBe(200)
    const stored = await putRaw(baseUrl, key.key, 'hook-part.gcode', `; hook ${uniqueName('g')}\nG28\n`)
    expect(stored.status).toBe(201)
    expect((await call(baseUrl, 'DELETE', `/api/v1/api-keys/${key.id}`, { token })).status).toBe(200)
    expect((await call(baseUrl, 'GET', '/api/v1/models', { headers: { 'X-Api-Key': key.key } })).status).toBe(401)
  })

  it('ingests a multipart upload, reads it, and stores the same bytes sent raw only once', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const cube = binaryCube(17, 3)
    const first = await upload(baseUrl, token, 'Workers Cube.stl', cube)
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body).toMatchObject({
      duplicate: false,
      model_created: true,
      file: { format: 'stl', size: cube.length },
    })
    expect(first.body.file.metadata.mesh).toMatchObject({ triangles: 12, manifold: true })
    const again = await putRaw(baseUrl, token, 'cube-again.stl', cube)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ duplicate: true, file: { id: first.body.file.id } })

    const download = await fetch(`${baseUrl}/api/v1/files/${first.body.file.id}/content`, {
      headers: authHeaders(token),
    })
    expect(download.status).toBe(200)
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(cube)
    const range = await fetch(`${baseUrl}/api/v1/files/${first.body.file.id}/content`, {
      headers: { ...authHeaders(token), Range: 'bytes=80-83' },
    })
    expect(range.status).toBe(206)
    expect(new Uint8Array(await range.arrayBuffer())).toEqual(cube.slice(80, 84))
    const thumbnail = await fetch(`${baseUrl}/api/v1/models/${first.body.model.id}/thumbnail`, {
      headers: authHeaders(token),
    })
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.headers.get('content-type')).toBe('image/png')
  })

  it('streams a file larger than one R2 part and gives back the same bytes', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const gcode = bulkyGcode(17)
    expect(gcode.length).toBeGreaterThan(16 * 1024 * 1024)
    const stored = await upload(baseUrl, token, 'bulky.gcode', gcode)
    expect(stored.status, JSON.stringify(stored.body)).toBe(201)
    expect(stored.body.file.sha256).toBe(sha256Hex(gcode))
    expect(stored.body.file.parse_warnings.join(' ')).toMatch(/only files up to 16777216 bytes are read/)
    const content = `${baseUrl}/api/v1/files/${stored.body.file.id}/content`
    // workerd may close the connection the 17 MiB upload came on just after answering it; a GET
    // sent on that connection in the same instant fails before any answer (undici reports "other
    // side closed"), and clients send it again on a new connection, as browsers do.
    const download = await fetch(content, { headers: authHeaders(token) }).catch((error: Error) => {
      if ((error.cause as { code?: string } | undefined)?.code !== 'UND_ERR_SOCKET') throw error
      return fetch(content, { headers: authHeaders(token) })
    })
    expect(await download.text()).toBe(gcode)
  })

  it('refuses bad multipart bodies and oversize uploads with a problem, storing nothing', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const before = (await call(baseUrl, 'GET', '/api/v1/models/stats', { token })).body
    const cut = await call(baseUrl, 'POST', '/api/v1/ingest', {
      token,
      headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="cut.stl"\r\n\r\nsolid cut',
    })
    expect(cut.status).toBe(400)
    expect(cut.body.code).toBe('malformed_multipart')
    const noFile = await call(baseUrl, 'POST', '/api/v1/ingest', {
      token,
      headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--xyz--\r\n',
    })
    expect(noFile.status).toBe(422)
    const oversize = await upload(baseUrl, token, 'huge.stl', new Uint8Array(maxUploadBytes + 1))
    expect(oversize.status).toBe(413)
    expect(oversize.headers.get('content-type')).toMatch(/application\/problem\+json/)
    expect((await call(baseUrl, 'GET', '/api/v1/models/stats', { token })).body).toEqual(before)
  })

  it('unpacks a small zip in memory and answers 501 for one over the bound', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const zip = zipSync({ 'Kit/left.stl': binaryCube(5, 1), 'Kit/right.stl': binaryCube(6, 2) })
    const unpacked = await upload(baseUrl, token, 'kit.zip', zip)
    expect(unpacked.status, JSON.stringify(unpacked.body)).toBe(201)
    expect(unpacked.body.kind).toBe('archive')
    expect(unpacked.body.models.map((entry: { model: { name: string } }) => entry.model.name)).toEqual(['Kit'])
    const big = zipSync({ 'noise.bin': crypto.getRandomValues(new Uint8Array(65_536)), 'a.stl': binaryCube(7) })
    const refused = await upload(baseUrl, token, 'big.zip', big)
    expect(refused.status).toBe(501)
    expect(refused.body.code).toBe('not_supported_on_this_runtime')
  })

  it('lists, searches and exports the library', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const name = uniqueName('Searchable Widget')
    const stored = await upload(baseUrl, token, `${name}.stl`, binaryCube(9, 9))
    expect(stored.status).toBe(201)
    const found = await call(baseUrl, 'GET', `/api/v1/models?q=${encodeURIComponent(name.split('-')[1] ?? '')}`, {
      token,
    })
    expect(found.status).toBe(200)
    expect(found.body.items.map((model: { id: string }) => model.id)).toEqual([stored.body.model.id])
    const listed = await call(baseUrl, 'GET', '/api/v1/models?sort=name&limit=200', { token })
    expect(listed.body.items.length).toBeGreaterThanOrEqual(3)
    const csv = await call(baseUrl, 'GET', '/api/v1/models/export?format=csv', { token })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/)
    expect(csv.body).toContain(name)
    const json = await call(baseUrl, 'GET', '/api/v1/models/export?format=json', { token })
    expect(json.body.models.some((model: { id: string }) => model.id === stored.body.model.id)).toBe(true)
  })

  it('answers 501 with the reason for printers, events and webhooks, and for backups and restores without a backup bucket', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const webhook = { name: 'Phone', url: 'https://ntfy.sh/printers', format: 'ntfy', event_types: ['printer.error'] }
    for (const [method, path, json] of [
      ['POST', '/api/v1/backups', undefined],
      ['POST', `/api/v1/backups/${crypto.randomUUID()}/restore`, undefined],
      ['POST', '/api/v1/printers', { name: 'Voron', provider: 'moonraker', address: 'http://voron.local:7125' }],
      ['GET', '/api/v1/events', undefined],
      ['POST', '/api/v1/webhooks', webhook],
    ] as const) {
      const reply = await call(baseUrl, method, path, { token, ...(json ? { json } : {}) })
      expect(reply.status, path).toBe(501)
      expect(reply.headers.get('content-type')).toMatch(/application\/problem\+json/)
      expect(reply.body).toMatchObject({ code: 'not_supported_on_this_runtime' })
      expect(reply.body.detail).toMatch(/(not available on|need a backup bucket)/)
    }
    // What works without them still does.
    expect((await call(baseUrl, 'GET', '/api/v1/printers', { token })).body.items).toEqual([])
    expect((await call(baseUrl, 'GET', '/api/v1/backups', { token })).body.items).toEqual([])
  })

  it('serves the web UI and the API reference from the static assets', async () => {
    const page = await fetch(`${baseUrl}/`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<base href="/"')
    // Each of the page's assets arrives as the built file's bytes once the named encoding is undone
    // (fetch undoes it): a precompressed copy compressed again by the runtime would not.
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((match) => match[1] as string)
    expect(assets.length).toBeGreaterThan(1)
    const built = join(await ensureBuilt(), 'web')
    for (const asset of assets) {
      for (const encoding of ['br', 'gzip', 'identity']) {
        const answer = await fetch(`${baseUrl}/${asset}`, { headers: { 'Accept-Encoding': encoding } })
        expect(answer.status, asset).toBe(200)
        expect(
          Buffer.from(await answer.arrayBuffer()).equals(await readFile(join(built, asset))),
          `${asset} ${encoding}`,
        ).toBe(true)
      }
    }
    const docs = await fetch(`${baseUrl}/docs`)
    expect(docs.status).toBe(200)
    const viewer = await fetch(`${baseUrl}/docs/assets/swagger-ui-bundle.js`)
    expect(viewer.status).toBe(200)
    expect((await fetch(`${baseUrl}/openapi.json`)).status).toBe(200)
  })

  it('shows the web UI in Chromium: the sign-in page renders from its assets', async () => {
    const browser = await launchChromium()
    try {
      const { page, context, blocked, pageErrors } = await openOfflinePage(browser, new URL(baseUrl).origin)
      await page.goto(`${baseUrl}/`)
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
      await context.close()
    } finally {
      await browser.close()
    }
  })
})
