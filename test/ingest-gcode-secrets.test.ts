import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDACTED, redactGcodeSecrets } from '../src/core/formats/redact.js'
import { admin, adminEnv, newAccount, sha256Hex, signIn } from './support/accounts.js'
import { binaryGcode, gcodeBlock } from './support/binary-gcode.js'
import { prusaSlicer, SHAPES } from './support/prusa-slicer.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { putRaw, upload } from './support/uploads.js'

let vault: TestVault
let token: string
const scratch = mkdtempSync(join(tmpdir(), 'gcode-secrets-'))

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => {
  await vault?.close()
  rmSync(scratch, { recursive: true, force: true })
})

const SECRETS = ['sup3r-s3cret-key', 'hunter2hunter2', 'ada-lovelace']

/**
 * G-code the real PrusaSlicer sliced for a printer with a print host password and user
 * (which it writes into the settings block), plus an API key line as older PrusaSlicer
 * versions and other slicers write it.
 */
function slicedWithSecrets(): string {
  const ini = join(scratch, 'printer.ini')
  writeFileSync(ini, 'host_type = octoprint\nprinthost_password = hunter2hunter2\nprinthost_user = ada-lovelace\n')
  const output = join(scratch, 'box.gcode')
  prusaSlicer('--load', ini, '--export-gcode', '--output', output, join(SHAPES, 'box.stl'))
  const gcode = readFileSync(output, 'utf8').replace(
    '; prusaslicer_config = begin\n',
    '; prusaslicer_config = begin\n; printhost_apikey = sup3r-s3cret-key\n',
  )
  for (const secret of SECRETS) expect(gcode).toContain(secret)
  return gcode
}

async function download(fileId: string, as: string): Promise<string> {
  const res = await fetch(`${vault.baseUrl}/api/v1/files/${fileId}/content`, {
    headers: { Authorization: `Bearer ${as}` },
  })
  expect(res.status).toBe(200)
  return res.text()
}

/** Runs text through the redacting stream in chunks of `size` bytes. */
async function redactInChunks(text: string, size: number): Promise<string> {
  const bytes = new TextEncoder().encode(text)
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size))
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
  return new Response(source.pipeThrough(redactGcodeSecrets())).text()
}

describe('secrets in stored G-code', () => {
  it('stores sliced G-code without its print host secrets, every other line byte for byte, and dedups on the upload', async () => {
    const original = slicedWithSecrets()
    const first = await upload(vault.baseUrl, token, 'box-with-secrets.gcode', original)
    expect(first.status).toBe(201)
    expect(JSON.stringify(first.body)).not.toMatch(new RegExp(SECRETS.join('|')))

    // Any user can download it: the bytes carry no secret.
    const other = await newAccount(vault.baseUrl, token)
    const stored = await download(first.body.file.id, other.token)
    for (const secret of SECRETS) expect(stored).not.toContain(secret)
    expect(first.body.file.sha256).toBe(sha256Hex(stored))
    expect(first.body.file.size).toBe(Buffer.byteLength(stored))

    // Everything but the secret lines is identical, so it prints as the original would.
    const before = original.split('\n')
    const after = stored.split('\n')
    expect(after).toHaveLength(before.length)
    const changed = before.flatMap((line, index) => (line === after[index] ? [] : [[line, after[index]]]))
    expect(changed).toEqual([
      ['; printhost_apikey = sup3r-s3cret-key', `; printhost_apikey = ${REDACTED}`],
      ['; printhost_password = hunter2hunter2', `; printhost_password = ${REDACTED}`],
      ['; printhost_user = ada-lovelace', `; printhost_user = ${REDACTED}`],
    ])
    expect(first.body.file.metadata.gcode.config).toMatchObject({
      printhost_apikey: REDACTED,
      printhost_password: REDACTED,
      host_type: 'octoprint',
    })

    // The slicer hook firing again (multipart or raw PUT) is a duplicate of the same file.
    const again = await upload(vault.baseUrl, token, 'box-with-secrets.gcode', original)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ duplicate: true, file: { id: first.body.file.id } })
    const raw = await putRaw(vault.baseUrl, token, 'box-again.gcode', original)
    expect(raw.status).toBe(200)
    expect(raw.body.file.id).toBe(first.body.file.id)
    // Uploading the redacted bytes themselves is the same file too.
    expect((await putRaw(vault.baseUrl, token, 'box-redacted.gcode', stored)).body.file.id).toBe(first.body.file.id)
  })

  it('stores other formats as sent, secret-looking text included', async () => {
    const text = 'solid s\n; printhost_apikey = not-a-gcode-secret\nendsolid s\n'
    const res = await putRaw(vault.baseUrl, token, 'odd.txt', text)
    expect(res.status).toBe(201)
    expect(await download(res.body.file.id, token)).toBe(text)
  })

  it('stores binary G-code byte for byte: rewriting bytes of a block would break its checksum', async () => {
    // Compressed G-code data may hold any bytes, such as these that read like a secret setting.
    const lookalike = new TextEncoder().encode('\n; printhost_apikey = abcd1234\n')
    const bgcode = binaryGcode([{ ...gcodeBlock(1), data: lookalike }])
    const res = await upload(vault.baseUrl, token, 'odd.bgcode', bgcode)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.file).toMatchObject({
      size: bgcode.length,
      sha256: createHash('sha256').update(bgcode).digest('hex'),
      format: 'gcode',
    })
  })

  it('redacts the same whatever the chunks: CRLF lines, indented settings, empty values and overlong lines', async () => {
    const long = `; note = ${'x'.repeat(70_000)} ; printhost_apikey = nope`
    const text = [
      'G28',
      '; printhost_apikey = abc123secret\r',
      '  ;printhost_password=hunter2',
      '; printhost_user = ',
      '; printhost_cafile = ',
      '; api_key = "quoted secret"',
      long,
      `;${' '.repeat(60_000)}x`,
      'G1 X10 ; password = not a setting line',
      '; layer_height = 0.2',
      '; auth_token = last-line-no-newline',
    ].join('\n')
    const expected = [
      'G28',
      `; printhost_apikey = ${REDACTED}\r`,
      `  ;printhost_password=${REDACTED}`,
      '; printhost_user = ',
      '; printhost_cafile = ',
      `; api_key = ${REDACTED}`,
      long,
      `;${' '.repeat(60_000)}x`,
      'G1 X10 ; password = not a setting line',
      '; layer_height = 0.2',
      `; auth_token = ${REDACTED}`,
    ].join('\n')
    // Small chunks split every line; 1000-byte ones make the overlong lines pass in pieces.
    const short = (lines: string) =>
      lines
        .split('\n')
        .filter((line) => line.length < 1000)
        .join('\n')
    for (const size of [1, 7])
      expect(await redactInChunks(short(text), size), `chunks of ${size}`).toBe(short(expected))
    for (const size of [1000, 4096, 1_000_000])
      expect(await redactInChunks(text, size), `chunks of ${size}`).toBe(expected)
  })
})
