import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, createApiKeyAs, newAccount, type Reply, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, sliceShape } from './support/uploads.js'

/**
 * The OctoPrint-compatible upload target, driven by requests built the way the slicers' host code
 * builds them. PrusaSlicer (src/slic3r/Utils/OctoPrint.cpp) and OrcaSlicer (the same file, forked):
 * the host URL with `/api/version` or `/api/files/local` appended after one `/`; `X-Api-Key` on
 * every request; "Test" and every upload first GET api/version and need `api` plus a `text`
 * starting with "OctoPrint"; the upload is a libcurl form with the parts `print` ("true"/"false"),
 * `path` (the folder of the name typed, usually empty) and then `file` (the final name, type
 * application/octet-stream); any status from 400 shows as "HTTP <status>: <body>". The upload here
 * goes through the curl binary, which builds forms with the same libcurl. Cura's OctoPrint
 * Connection plugin (OctoPrintOutputDevice.py) sends `path`, `file`, then `select` and `print` as
 * text/plain parts.
 */
let vault: TestVault
let adminToken: string
let apiKey: string
let userToken: string
let gcode: Buffer
let dir: string

const userAgent = 'PrusaSlicer/2.9.2'

beforeAll(async () => {
  vault = await startTestVault({ ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '0', VAULT_PRINTER_CONFIRM_MS: '3000' })
  adminToken = (await signIn(vault.baseUrl, admin)).access_token
  const account = await newAccount(vault.baseUrl, adminToken)
  userToken = account.token
  apiKey = (await createApiKeyAs(vault.baseUrl, account.token)).key
  const sliced = sliceShape('box')
  gcode = sliced.gcode
  dir = mkdtempSync(join(tmpdir(), 'vault-octoprint-'))
})
afterAll(async () => vault?.close())

/** A distinct G-code file (the sliced box plus a comment), written where curl can read it. */
function gcodeFile(tag: string): string {
  const path = join(dir, `${tag}.gcode`)
  writeFileSync(path, Buffer.concat([gcode, Buffer.from(`; ${tag}\n`)]))
  return path
}

const parse = (text: string) => (text ? JSON.parse(text) : null)

/** PrusaSlicer's and OrcaSlicer's "Test": GET <host>/api/version with the key. */
async function testConnection(host: string, key = apiKey): Promise<Reply> {
  const res = await fetch(`${host}/api/version`, { headers: { 'X-Api-Key': key, 'User-Agent': userAgent } })
  return { status: res.status, body: parse(await res.text()), headers: res.headers }
}

/**
 * PrusaSlicer's and OrcaSlicer's upload, through libcurl: the form parts print, path, file, in
 * this order, and `X-Api-Key`. `Expect: 100-continue` is what libcurl adds to a large form.
 */
async function slicerUpload(
  host: string,
  file: string,
  name: string,
  options: { print?: boolean; key?: string; expectContinue?: boolean } = {},
): Promise<Reply> {
  const args = [
    '--silent',
    '--show-error',
    '--max-time',
    '30',
    '--user-agent',
    userAgent,
    '--header',
    `X-Api-Key: ${options.key ?? apiKey}`,
    ...(options.expectContinue ? ['--header', 'Expect: 100-continue'] : []),
    '--form-string',
    `print=${options.print ? 'true' : 'false'}`,
    '--form-string',
    'path=',
    '--form',
    `file=@${file};filename=${name};type=application/octet-stream`,
    '--write-out',
    '\n%{http_code}',
    `${host}/api/files/local`,
  ]
  const { stdout } = await promisify(execFile)('curl', args)
  const at = stdout.lastIndexOf('\n')
  return { status: Number(stdout.slice(at + 1)), body: parse(stdout.slice(0, at)), headers: new Headers() }
}

/** The Cura OctoPrint Connection plugin's upload: path, file, then select and print, as text/plain parts. */
async function curaUpload(host: string, name: string, bytes: Buffer, autoPrint: boolean): Promise<Reply> {
  const boundary = `boundary_.oOo._${crypto.randomUUID().replaceAll('-', '')}`
  const part = (disposition: string, type: string, content: Buffer | string) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Type: ${type}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n`),
      Buffer.from(content),
      Buffer.from('\r\n'),
    ])
  const body = Buffer.concat([
    part('name="path"', 'text/plain', ''),
    part(`name="file"; filename="${name}"`, 'application/octet-stream', bytes),
    part('name="select"', 'text/plain', 'true'),
    ...(autoPrint ? [part('name="print"', 'text/plain', 'true')] : []),
    Buffer.from(`--${boundary}--\r\n`),
  ])
  const res = await fetch(`${host}/api/files/local`, {
    method: 'POST',
    headers: {
      'X-Api-Key': apiKey,
      'User-Agent': 'Cura/5.8.0',
      'Content-Type': `multipart/form-data; boundary="${boundary}"`,
    },
    body,
  })
  return { status: res.status, body: parse(await res.text()), headers: res.headers }
}

async function registerPrinter(name: string, address: string): Promise<string> {
  const reply = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
    token: adminToken,
    json: { name, provider: 'virtual', address },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.id
}

const dispatchesOf = async (printerId: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/printers/${printerId}/dispatches`, { token: userToken })).body.items

/** The vault's stored files of this name. */
const filesNamed = (name: string) =>
  vault.deps.database.db.selectFrom('files').select('id').where('original_name', '=', name).execute()

describe('the vault alone as an OctoPrint host (<vault>/octoprint)', () => {
  const host = () => `${vault.baseUrl}/octoprint`

  it('passes the slicers’ Test: api/version has `api` and a text starting with OctoPrint', async () => {
    const version = await testConnection(host())
    expect(version.status).toBe(200)
    expect(version.body).toEqual({ api: '0.1', server: '1.5.0', text: 'OctoPrint (model-vault 0.0.0-test)' })
    const server = await call(host(), 'GET', '/api/server', { headers: { 'X-Api-Key': apiKey } })
    expect(server.body).toEqual({ version: '1.5.0', safemode: null })
    const settings = await call(host(), 'GET', '/api/settings', { headers: { 'X-Api-Key': apiKey } })
    expect(settings.body).toEqual({ feature: { sdSupport: false, temperatureGraph: false }, plugins: {} })
  })

  it('refuses a missing or wrong key with 401 and a readable error, storing nothing', async () => {
    const missing = await call(host(), 'GET', '/api/version')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/)
    expect(missing.body.error).toContain('X-Api-Key')
    const wrong = await testConnection(host(), 'mvk_wrong_key_0000000000000000000000')
    expect(wrong.status).toBe(401)
    expect(Object.keys(wrong.body)).toEqual(['error'])
    const upload = await slicerUpload(host(), gcodeFile('wrong-key'), 'wrong-key.gcode', { key: 'not-a-key' })
    expect(upload.status).toBe(401)
    expect(upload.body.error).toEqual(expect.any(String))
    expect(await filesNamed('wrong-key.gcode')).toEqual([])
  })

  it('stores “Send” uploads under the final name, answering OctoPrint’s shape; the same bytes again are one file', async () => {
    const file = gcodeFile('send-box')
    const first = await slicerUpload(host(), file, 'Shape-Box_0.2mm_PLA.gcode', { expectContinue: true })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body).toMatchObject({
      done: true,
      files: { local: { name: 'Shape-Box_0.2mm_PLA.gcode', origin: 'local' } },
      effectivePrint: false,
      vault: { duplicate: false, dispatch_id: null },
    })
    const { resource, download } = first.body.files.local.refs
    expect(resource).toBe(`${vault.baseUrl}/api/v1/files/${first.body.vault.file_id}`)
    const stored = await fetch(download, { headers: { 'X-Api-Key': apiKey } })
    expect(stored.status).toBe(200)

    const again = await slicerUpload(host(), file, 'Shape-Box_0.2mm_PLA.gcode')
    expect(again.status).toBe(201)
    expect(again.body.vault).toMatchObject({ duplicate: true, file_id: first.body.vault.file_id })
    expect(await filesNamed('Shape-Box_0.2mm_PLA.gcode')).toHaveLength(1)
  })

  it('puts a file into the model named by the documented model_id field', async () => {
    const document = (await call(vault.baseUrl, 'GET', '/openapi.json')).body
    const form = document.paths['/octoprint/api/files/local'].post.requestBody.content['multipart/form-data'].schema
    expect(form.properties.model_id.description).toContain('the model the file joins')
    const first = await slicerUpload(host(), gcodeFile('model-id-first'), 'first-of-model.gcode')
    const modelId = first.body.vault.model_id
    const body = new FormData()
    body.set('model_id', modelId)
    body.set('file', new Blob([readFileSync(gcodeFile('model-id-second'))]), 'second-of-model.gcode')
    const res = await fetch(`${host()}/api/files/local`, { method: 'POST', headers: { 'X-Api-Key': apiKey }, body })
    expect(res.status).toBe(201)
    expect(((await res.json()) as { vault: { model_id: string } }).vault.model_id).toBe(modelId)
  })

  it('takes the key as Authorization: Bearer too', async () => {
    const res = await fetch(`${host()}/api/version`, { headers: { Authorization: `Bearer ${apiKey}` } })
    expect(res.status).toBe(200)
  })

  it('answers “Send and print” with a readable 409: no printer is named; the file is kept', async () => {
    const reply = await slicerUpload(host(), gcodeFile('print-vault'), 'print-vault.gcode', { print: true })
    expect(reply.status).toBe(409)
    expect(reply.body.error).toMatch(/^Saved in the vault as print-vault\.gcode, but not printed: .*vault alone/)
    expect(reply.body.error).toContain('/octoprint/printers/')
    expect(await filesNamed('print-vault.gcode')).toHaveLength(1)
  })

  it('refuses what is not a multipart upload (415) and unknown OctoPrint paths (404), in OctoPrint’s shape', async () => {
    const json = await call(host(), 'POST', '/api/files/local', { headers: { 'X-Api-Key': apiKey }, json: {} })
    expect(json.status).toBe(415)
    expect(json.body.error).toContain('multipart/form-data')
    const job = await call(host(), 'GET', '/api/job', { headers: { 'X-Api-Key': apiKey, Accept: 'text/html' } })
    expect(job.status).toBe(404)
    expect(job.body.error).toContain('api/files/local')
  })
})

describe('a printer through the vault (<vault>/octoprint/printers/<id>)', () => {
  it('starts a “Send and print” through the safe send, confirmed, and records the dispatch', async () => {
    const id = await registerPrinter('Voron', 'virtual://voron?heat_seconds=0&print_seconds=30')
    const host = `${vault.baseUrl}/octoprint/printers/${id}`
    expect((await testConnection(host)).body.text).toBe('OctoPrint (model-vault 0.0.0-test, printer Voron)')

    const reply = await slicerUpload(host, gcodeFile('voron-print'), 'voron-print.gcode', { print: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({ done: true, effectiveSelect: true, effectivePrint: true })
    const [dispatch] = await dispatchesOf(id)
    expect(dispatch).toMatchObject({
      id: reply.body.vault.dispatch_id,
      file_id: reply.body.vault.file_id,
      outcome: 'confirmed',
      confirmed: true,
      remote_name: 'voron-print.gcode',
    })
    const status = (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}`, { token: userToken })).body.status
    expect(status).toMatchObject({ state: 'printing', job: { file_name: 'voron-print.gcode' } })
  })

  it("a hook's upload-only key passes the Test and stores, but needs the print scope to print", async () => {
    const id = await registerPrinter('Scoped', 'virtual://scoped?heat_seconds=0&print_seconds=30')
    const host = `${vault.baseUrl}/octoprint/printers/${id}`
    const uploadOnly = (await createApiKeyAs(vault.baseUrl, adminToken, 'hook', ['upload'])).key
    expect((await testConnection(host, uploadOnly)).status).toBe(200)
    const refused = await slicerUpload(host, gcodeFile('scoped'), 'scoped.gcode', { print: true, key: uploadOnly })
    expect(refused.status, JSON.stringify(refused.body)).toBe(403)
    expect(refused.body.error).toMatch(/^Saved in the vault as scoped\.gcode, but not printed: .*`print` scope/)
    expect(await dispatchesOf(id)).toEqual([])
    expect(await filesNamed('scoped.gcode')).toHaveLength(1)

    const printing = (await createApiKeyAs(vault.baseUrl, adminToken, 'hook-print', ['upload', 'print'])).key
    const sent = await slicerUpload(host, gcodeFile('scoped'), 'scoped.gcode', { print: true, key: printing })
    expect(sent.status, JSON.stringify(sent.body)).toBe(201)
    expect(sent.body.vault).toMatchObject({ duplicate: true })
    expect((await dispatchesOf(id))[0]).toMatchObject({ outcome: 'confirmed', file_name: 'scoped.gcode' })
  })

  it('refuses to print on a busy printer with a readable 409, sending nothing; the file is kept', async () => {
    const id = await registerPrinter('Busy', 'virtual://busy?heat_seconds=0&print_seconds=60')
    const host = `${vault.baseUrl}/octoprint/printers/${id}`
    expect((await slicerUpload(host, gcodeFile('busy-first'), 'busy-first.gcode', { print: true })).status).toBe(201)

    const reply = await slicerUpload(host, gcodeFile('busy-second'), 'busy-second.gcode', { print: true })
    expect(reply.status).toBe(409)
    expect(reply.body.error).toMatch(
      /^Saved in the vault as busy-second\.gcode, but not printed: Busy is not ready: it is printing/,
    )
    expect(reply.body.error).toContain('Nothing was sent')
    const [refused] = await dispatchesOf(id)
    expect(refused).toMatchObject({ file_name: 'busy-second.gcode', outcome: 'refused', uploaded: false })
    const status = (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}`, { token: userToken })).body.status
    expect(status.job.file_name).toBe('busy-first.gcode')
    expect(await filesNamed('busy-second.gcode')).toHaveLength(1)
  })

  it('stores a “Send” without touching the printer', async () => {
    const id = await registerPrinter('Quiet', 'virtual://quiet?heat_seconds=0&print_seconds=5')
    const reply = await slicerUpload(`${vault.baseUrl}/octoprint/printers/${id}`, gcodeFile('quiet'), 'quiet.gcode')
    expect(reply.status).toBe(201)
    expect(reply.body.vault.dispatch_id).toBeNull()
    expect(await dispatchesOf(id)).toEqual([])
  })

  it('prints a Cura upload whose print flag comes after the file', async () => {
    const id = await registerPrinter('Ender', 'virtual://ender?heat_seconds=0&print_seconds=30')
    const bytes = Buffer.concat([gcode, Buffer.from('; cura\n')])
    const reply = await curaUpload(`${vault.baseUrl}/octoprint/printers/${id}`, 'cura-box.gcode', bytes, true)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.headers.get('location')).toBe(reply.body.files.local.refs.resource)
    expect((await dispatchesOf(id))[0]).toMatchObject({ outcome: 'confirmed', file_name: 'cura-box.gcode' })
  })

  it('stores a mesh sent to print, and says why it was not printed', async () => {
    const id = await registerPrinter('Mesh', 'virtual://mesh?heat_seconds=0&print_seconds=5')
    const stl = join(dir, 'cube.stl')
    writeFileSync(stl, binaryCube(17))
    const reply = await slicerUpload(`${vault.baseUrl}/octoprint/printers/${id}`, stl, 'cube.stl', { print: true })
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual({
      error:
        'Saved in the vault as cube.stl, but not printed: cube.stl is a stl file; only G-code (or, to a Bambu Lab printer, a sliced .gcode.3mf) can be sent to a printer. Slice it first.',
    })
    expect(await filesNamed('cube.stl')).toHaveLength(1)
  })

  it('answers 404 for an unknown printer, before reading the upload', async () => {
    const host = `${vault.baseUrl}/octoprint/printers/no-such-printer`
    const test = await testConnection(host)
    expect(test.status).toBe(404)
    expect(test.body).toEqual({ error: 'No printer has the id no-such-printer.' })
    const upload = await slicerUpload(host, gcodeFile('nowhere'), 'nowhere.gcode')
    expect(upload.status).toBe(404)
    expect(await filesNamed('nowhere.gcode')).toEqual([])
  })
})
