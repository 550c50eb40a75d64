import { describe, expect, it } from 'vitest'
import { readMultipartWithBusboy } from './busboy-multipart.js'

const boundary = 'cut-body-boundary'
const head = new TextEncoder().encode(
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
)
const chunk = new Uint8Array(64 * 1024).fill(7)

/** A form whose body stops after `chunks` of the file, as a client that went away leaves it: ended with an error, or never. */
function cutForm(chunks: number, ending: 'error' | 'silence'): Request {
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head)
    },
    pull(controller) {
      if (sent < chunks) {
        sent++
        controller.enqueue(chunk)
      } else if (ending === 'error') controller.error(new Error('aborted'))
    },
  })
  return new Request('http://vault.test/api/v1/ingest', {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit)
}

/** Resolves on the next turns of the event loop, after every tick and timer the adapter scheduled. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('busboy multipart reader, with a body cut mid-way', () => {
  it('fails the file with a 400 problem when the body breaks off', async () => {
    const upload = readMultipartWithBusboy(cutForm(20, 'error'), { maxFileBytes: 1 << 30 })
    const file = await upload.file
    const reader = file!.stream.getReader()
    const read = async (): Promise<unknown> => ((await reader.read()).done ? 'ended' : read())
    await expect(read()).rejects.toMatchObject({ status: 400, code: 'malformed_multipart' })
    await expect(upload.fields).rejects.toMatchObject({ status: 400 })
  })

  it('keeps working after the reader cancels the file while the parser still holds data', async () => {
    for (const ending of ['error', 'silence'] as const) {
      const upload = readMultipartWithBusboy(cutForm(40, ending), { maxFileBytes: 1 << 30 })
      const reader = (await upload.file)!.stream.getReader()
      // The parser fills its buffer while nobody reads; one read asks it to resume, and the
      // cancel lands before the data it then hands over.
      await settled()
      await reader.read()
      void reader.read().catch(() => {})
      await reader.cancel(new Error('the ingest gave up'))
      await settled()
    }
    // An enqueue after the cancel throws from an event handler: vitest fails the run on such an uncaught error.
    expect(true).toBe(true)
  })

  it('ends the form when the reader gives up on the file, instead of leaving it waiting', async () => {
    const upload = readMultipartWithBusboy(cutForm(40, 'silence'), { maxFileBytes: 1 << 30 })
    const reader = (await upload.file)!.stream.getReader()
    await reader.read()
    await reader.cancel(new Error('the ingest gave up'))
    await expect(upload.fields).rejects.toMatchObject({ status: 400, code: 'malformed_multipart' })
  })
})
