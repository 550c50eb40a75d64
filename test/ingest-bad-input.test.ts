import { readdirSync, readFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { prusaBinaryGcode } from './support/binary-gcode.js'
import { rawRequest } from './support/raw-http.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { binaryCube, putRaw, upload } from './support/uploads.js'

const limit = 64 * 1024
let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault({ ...adminEnv, VAULT_MAX_UPLOAD_BYTES: String(limit) })
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

/** Everything a failed upload could leave behind: rows, blobs, staging files. */
async function vaultState() {
  const { db } = vault.deps.database
  const blobs: string[] = []
  for await (const blob of vault.deps.blobs.list()) blobs.push(blob.key)
  return {
    files: (await db.selectFrom('files').select('sha256').orderBy('sha256').execute()).map((r) => r.sha256),
    models: (await db.selectFrom('models').select('id').orderBy('id').execute()).map((r) => r.id),
    blobs: blobs.sort(),
    staging: await readdir(join(vault.dataDir, 'blobs', '.staging')),
  }
}

/** Asserts `attempt` is refused with `status`/`code` as problem+json and changes nothing. */
async function expectRefusedWithoutChange(
  attempt: () => Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>,
  status: number,
  code: string,
) {
  const before = await vaultState()
  const res = await attempt()
  expect(res.status, JSON.stringify(res.body)).toBe(status)
  expect(res.headers.get('content-type')).toBe('application/problem+json')
  expect(res.body.code).toBe(code)
  expect(await vaultState()).toEqual(before)
  return res
}

const threeMfModel = `<?xml version="1.0" encoding="UTF-8"?>
<model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
 <resources><object id="1" type="model"><mesh>
  <vertices><vertex x="0" y="0" z="0"/><vertex x="10" y="0" z="0"/><vertex x="0" y="10" z="0"/><vertex x="0" y="0" z="10"/></vertices>
  <triangles><triangle v1="0" v2="2" v3="1"/><triangle v1="0" v2="1" v3="3"/><triangle v1="0" v2="3" v3="2"/><triangle v1="1" v2="2" v3="3"/></triangles>
 </mesh></object></resources>
 <build><item objectid="1"/></build>
</model>`
const contentTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>`

describe('refused uploads leave the vault as it was', () => {
  it('an empty file is 422', async () => {
    await expectRefusedWithoutChange(() => upload(vault.baseUrl, token, 'empty.stl', ''), 422, 'validation_failed')
  })

  it('a form without a file is 422 naming the field', async () => {
    const form = new FormData()
    form.append('model_id', 'x')
    const res = await expectRefusedWithoutChange(
      async () => {
        const r = await fetch(`${vault.baseUrl}/api/v1/ingest`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          body: form,
        })
        return { status: r.status, body: await r.json(), headers: r.headers }
      },
      422,
      'validation_failed',
    )
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.file' })])
  })

  it('a JSON body is 415', async () => {
    await expectRefusedWithoutChange(
      () => call(vault.baseUrl, 'POST', '/api/v1/ingest', { token, json: { file: 'x' } }),
      415,
      'unsupported_media_type',
    )
  })

  it('a multipart body without a boundary is 400', async () => {
    await expectRefusedWithoutChange(
      () =>
        call(vault.baseUrl, 'POST', '/api/v1/ingest', {
          token,
          body: 'x',
          headers: { 'Content-Type': 'multipart/form-data; charset=utf-8' },
        }),
      400,
      'malformed_multipart',
    )
  })

  it('a file over VAULT_MAX_UPLOAD_BYTES is 413, by multipart and by PUT', async () => {
    const big = new Uint8Array(limit * 2).fill(7)
    await expectRefusedWithoutChange(() => upload(vault.baseUrl, token, 'big.bin', big), 413, 'payload_too_large')
    await expectRefusedWithoutChange(() => putRaw(vault.baseUrl, token, 'big.bin', big), 413, 'payload_too_large')
  })

  it('an oversize body that declares no length is cut off at the limit with 413', async () => {
    const chunks = [new Uint8Array(limit).fill(1), new Uint8Array(limit).fill(2)]
    await expectRefusedWithoutChange(
      async () => {
        const body = new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) })
        const r = await fetch(`${vault.baseUrl}/api/v1/ingest/stream.bin`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${token}` },
          body,
          duplex: 'half',
        } as RequestInit)
        return { status: r.status, body: await r.json(), headers: r.headers }
      },
      413,
      'payload_too_large',
    )
  })

  it('a 3MF that is a zip bomb is refused as unsafe', async () => {
    const bomb = zipSync(
      { '[Content_Types].xml': strToU8(contentTypes), '3D/3dmodel.model': new Uint8Array(48 * 1024 * 1024) },
      { level: 9 },
    )
    expect(bomb.length).toBeLessThan(limit)
    const res = await expectRefusedWithoutChange(
      () => upload(vault.baseUrl, token, 'bomb.3mf', bomb),
      422,
      'unsafe_file',
    )
    expect(res.body.detail).toMatch(/refused/)
  })

  it('a damaged binary G-code (cut short, a bad checksum) is refused as unsafe, leaving nothing', async () => {
    const whole = prusaBinaryGcode(['Bracket.stl'])
    const damaged = Buffer.from(whole)
    damaged[200] = (damaged[200] ?? 0) ^ 0xff
    for (const [name, bytes, reason] of [
      ['cut.bgcode', whole.subarray(0, whole.length - 20), /cut short|past the end/],
      ['damaged.bgcode', damaged, /CRC-32/],
    ] as const) {
      const res = await expectRefusedWithoutChange(() => upload(vault.baseUrl, token, name, bytes), 422, 'unsafe_file')
      expect(res.body.detail).toMatch(reason)
    }
  })

  it('a 3MF with a ../ path is refused as unsafe', async () => {
    const evil = zipSync({
      '[Content_Types].xml': strToU8(contentTypes),
      '3D/3dmodel.model': strToU8(threeMfModel),
      '../../etc/evil.model': strToU8('x'),
    })
    await expectRefusedWithoutChange(() => upload(vault.baseUrl, token, 'evil.3mf', evil), 422, 'unsafe_file')
  })

  it('a client that disconnects mid-upload leaves no file, no blob and no staging file', async () => {
    const before = await vaultState()
    const url = new URL(vault.baseUrl)
    const boundary = 'cut-off-boundary'
    const socket = connect(Number(url.port), url.hostname)
    socket.write(
      `POST /api/v1/ingest HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${limit - 100}\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.stl"\r\n\r\n`,
    )
    const answered = () => vault.logs.filter((line) => line.msg === 'request' && line.path === '/api/v1/ingest').length
    const answeredBefore = answered()
    socket.write(new Uint8Array(20_000).fill(9))
    // Time for the vault to begin on the file, so the cut comes inside it (earlier cuts are as safe).
    await new Promise((resolve) => setTimeout(resolve, 200))
    socket.destroy()
    await until(() => answered() > answeredBefore, 'the vault ends the cut request')
    const staged = async () => (await vaultState()).staging.length
    await until(async () => (await staged()) === before.staging.length, 'the staging file is removed')
    expect(await vaultState()).toEqual(before)
  })
})

describe('unreadable files are stored as opaque, with a warning', () => {
  it('a truncated binary STL is kept, with a parse warning and no mesh figures', async () => {
    const truncated = binaryCube(30).subarray(0, 84 + 50 * 5 + 17)
    const res = await upload(vault.baseUrl, token, 'truncated.stl', truncated)
    expect(res.status).toBe(201)
    expect(res.body.file.format).toBe('stl')
    expect(res.body.file.parse_warnings).toEqual([expect.stringMatching(/^Stored as an opaque file: /)])
    expect(res.body.file.metadata).toEqual({})
    expect(res.body.file.has_thumbnail).toBe(false)
  })

  it('a 3MF that is not a zip, and G-code that is binary garbage, are kept with warnings', async () => {
    for (const [name, bytes] of [
      ['not-a-zip.3mf', strToU8('this is not a zip file at all')],
      ['garbage.gcode', new Uint8Array(4096).map((_, i) => (i * 7919) % 256)],
    ] as const) {
      const res = await upload(vault.baseUrl, token, name, bytes)
      expect(res.status, name).toBe(201)
      expect(res.body.file.parse_warnings.length, name).toBeGreaterThan(0)
    }
  })

  it('every malformed STL of the stl-models collection is stored or refused with a 4xx, never a 5xx', async () => {
    const dir = 'node_modules/stl-models/broken'
    const names = readdirSync(dir).filter(
      (name) => name.endsWith('.stl') && readFileSync(join(dir, name)).length < limit,
    )
    expect(names.length).toBeGreaterThan(0)
    for (const name of names) {
      const res = await upload(vault.baseUrl, token, name, readFileSync(join(dir, name)))
      expect(res.status, name).toBeLessThan(500)
    }
  })
})

describe('a refused upload tells the client not to reuse the connection', () => {
  it('answers an oversize upload with Connection: close, and the next request succeeds', async () => {
    const big = new Uint8Array(limit * 4).fill(3)
    const refused = await putRaw(vault.baseUrl, token, 'too-big.bin', big)
    expect(refused.status).toBe(413)
    expect(refused.headers.get('connection')).toBe('close')
    const next = await upload(vault.baseUrl, token, 'after-413.stl', binaryCube(31))
    expect(next.status).toBe(201)
  })
})

describe('a multipart body that ends early is 400 malformed_multipart and leaves nothing staged', () => {
  const boundary = 'cut-boundary'
  const whole =
    `--${boundary}\r\nContent-Disposition: form-data; name="model_id"\r\n\r\n\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.stl"\r\n` +
    `Content-Type: application/octet-stream\r\n\r\n${'solid cut\n'.repeat(2000)}\r\n--${boundary}--\r\n`
  const fileStart = whole.indexOf('solid cut')
  const cuts = {
    'inside the first part headers': whole.indexOf('name="model_id"'),
    'after a field': whole.indexOf(`--${boundary}\r\nContent-Disposition: form-data; name="file"`),
    'inside the file part headers': whole.indexOf('filename="cut.stl"'),
    'a few bytes into the file': fileStart + 5,
    'deep inside the file': fileStart + 15_000,
    'before the final boundary': whole.lastIndexOf(`\r\n--${boundary}--`),
    'inside the final boundary': whole.lastIndexOf(`--\r\n`),
  }

  for (const [where, at] of Object.entries(cuts)) {
    for (const framing of ['Content-Length', 'chunked'] as const) {
      it(`cut ${where} (${framing})`, async () => {
        const body = whole.slice(0, at)
        const head =
          `POST /api/v1/ingest HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nConnection: close\r\n` +
          (framing === 'chunked'
            ? 'Transfer-Encoding: chunked\r\n\r\n'
            : `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`)
        const chunks =
          framing === 'chunked' ? [`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`] : [body]
        await expectRefusedWithoutChange(
          async () => {
            const reply = await rawRequest(vault.baseUrl, head, chunks)
            return { status: reply.status, body: JSON.parse(reply.body), headers: new Headers(reply.headers) }
          },
          400,
          'malformed_multipart',
        )
      })
    }
  }

  // Node's HTTP server answers this one itself (a bare 400: the request's framing is broken).
  it('a client that stops sending inside the file (half-close) is answered 400 and leaves nothing staged', async () => {
    const body = whole.slice(0, fileStart + 9_000)
    const head =
      `POST /api/v1/ingest HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${whole.length}\r\n\r\n`
    const before = await vaultState()
    const reply = await rawRequest(vault.baseUrl, head, [body], { halfClose: true })
    expect(reply.status).toBe(400)
    const staged = async () => (await vaultState()).staging.length
    await until(async () => (await staged()) === before.staging.length, 'the staging file is removed')
    expect(await vaultState()).toEqual(before)
  })
})
