import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, authHeaders, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(() => vault.close())

const encoder = new TextEncoder()

/**
 * An upload body sent in two halves: the first when the vault first reads, the second only once
 * `finish()` is called. `pulled` settles when the vault first reads it. A high-water mark of 0
 * means nothing is pulled until someone reads.
 */
function heldBody(first: string, second: string) {
  let markPulled!: () => void
  const pulled = new Promise<void>((resolve) => (markPulled = resolve))
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  let reads = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reads++
        if (reads === 1) {
          markPulled()
          controller.enqueue(encoder.encode(first))
          return
        }
        await finished
        controller.enqueue(encoder.encode(second))
        controller.close()
      },
    },
    { highWaterMark: 0 },
  )
  let wasPulled = false
  void pulled.then(() => (wasPulled = true))
  return { body, pulled, finish, isPulled: () => wasPulled }
}

/** A raw upload (`PUT /ingest/{filename}`) of a small G-code sent in two halves. */
function rawUpload(index: number) {
  const first = `; admission test ${index}\n`
  const second = `G1 X${index} Y${index}\n`
  const held = heldBody(first, second)
  const answer = vault.app.request(`/api/v1/ingest/admission-${index}.gcode`, {
    method: 'PUT',
    headers: { ...authHeaders(token), 'Content-Length': String(first.length + second.length) },
    body: held.body,
    duplex: 'half',
  } as RequestInit)
  return { ...held, answer }
}

/** A multipart upload (`POST /ingest`) of a small G-code, its file part cut in two halves. */
function formUpload(index: number) {
  const boundary = `admission${index}`
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="form-${index}.gcode"\r\nContent-Type: text/x.gcode\r\n\r\n; form ${index}\n`
  const tail = `G1 X${index}\n\r\n--${boundary}--\r\n`
  const held = heldBody(head, tail)
  const answer = vault.app.request('/api/v1/ingest', {
    method: 'POST',
    headers: { ...authHeaders(token), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: held.body,
    duplex: 'half',
  } as RequestInit)
  return { ...held, answer }
}

describe('upload bodies are read a few at a time', () => {
  it('leaves a fifth body unread while four are being received, and reads it once one is staged', async () => {
    const receiving = [rawUpload(1), formUpload(2), rawUpload(3), formUpload(4)]
    await Promise.all(receiving.map((upload) => upload.pulled))
    const waiting = formUpload(5)
    // Ample time for the vault to start reading it, were it not waiting for a slot.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(waiting.isPulled()).toBe(false)
    // What the headers refuse is answered at once, without waiting for a turn.
    const refused = await Promise.race([
      vault.app.request('/api/v1/ingest', {
        method: 'POST',
        headers: { ...authHeaders(token), 'Content-Type': 'text/plain' },
        body: 'not a form',
      }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
    ])
    expect(refused?.status).toBe(415)

    receiving[0]!.finish()
    await waiting.pulled
    for (const upload of [...receiving.slice(1), waiting]) upload.finish()
    const answers = await Promise.all([...receiving, waiting].map((upload) => upload.answer))
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201])
    const names = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { file: { name: string } }).file.name),
    )
    expect(names).toEqual(['admission-1.gcode', 'form-2.gcode', 'admission-3.gcode', 'form-4.gcode', 'form-5.gcode'])
  })
})
