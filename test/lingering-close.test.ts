import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { rawRequest, sendThenRead } from './support/raw-http.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

const maxUploadBytes = 1024 * 1024
let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault({ ...adminEnv, VAULT_MAX_UPLOAD_BYTES: String(maxUploadBytes) })
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

const boundary = 'lingering-boundary'
const partHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.stl"\r\nContent-Type: application/octet-stream\r\n\r\n`
const partTail = `\r\n--${boundary}--\r\n`
/** A multipart upload of `mib` MiB of zeros, in 64 KiB chunks. */
function* uploadBody(mib: number) {
  yield partHead
  for (let i = 0; i < mib * 16; i++) yield new Uint8Array(64 * 1024)
  yield partTail
}
const bodyLength = (mib: number) => partHead.length + mib * 1024 * 1024 + partTail.length
const ingestHead = (headers: Record<string, string>) =>
  `POST /api/v1/ingest HTTP/1.1\r\nHost: vault\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n${Object.entries(
    headers,
  )
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`

/** `count` chunks of chunked framing around the upload's pieces, without the last chunk unless `end`. */
function* chunked(pieces: Iterable<Uint8Array | string>) {
  for (const piece of pieces) {
    const length = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength
    yield `${length.toString(16)}\r\n`
    yield piece
    yield '\r\n'
  }
  yield '0\r\n\r\n'
}

describe('an answer given while the request body is still arriving reaches a client that reads only after sending', () => {
  it('413 for a declared length over VAULT_MAX_UPLOAD_BYTES', async () => {
    const reply = await sendThenRead(
      vault.baseUrl,
      ingestHead({ Authorization: `Bearer ${token}`, 'Content-Length': String(bodyLength(8)) }),
      uploadBody(8),
    )
    expect(reply.status, reply.body).toBe(413)
    expect(reply.headers['content-type']).toBe('application/problem+json')
    expect(reply.headers.connection).toBe('close')
    expect(JSON.parse(reply.body).code).toBe('payload_too_large')
  })

  it('413 for a chunked upload that passes the limit on the way', async () => {
    const reply = await sendThenRead(
      vault.baseUrl,
      ingestHead({ Authorization: `Bearer ${token}`, 'Transfer-Encoding': 'chunked' }),
      chunked(uploadBody(8)),
    )
    expect(reply.status, reply.body).toBe(413)
    expect(JSON.parse(reply.body).detail).toContain(`${maxUploadBytes} bytes (VAULT_MAX_UPLOAD_BYTES)`)
  })

  it('401 for a wrong key on a large upload', async () => {
    const reply = await sendThenRead(
      vault.baseUrl,
      ingestHead({ Authorization: 'Bearer not-a-token', 'Content-Length': String(bodyLength(4)) }),
      uploadBody(4),
    )
    expect(reply.status, reply.body).toBe(401)
    expect(reply.headers['content-type']).toBe('application/problem+json')
  })

  it('still answers at once a client that waits for the answer before sending the body', async () => {
    const started = performance.now()
    const reply = await rawRequest(
      vault.baseUrl,
      ingestHead({ Authorization: `Bearer ${token}`, 'Content-Length': String(bodyLength(300)) }),
    )
    expect(reply.status).toBe(413)
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('nothing of the refused uploads was stored', async () => {
    const models = await fetch(`${vault.baseUrl}/api/v1/models`, { headers: { Authorization: `Bearer ${token}` } })
    expect((await models.json()).items).toEqual([])
  })
})
