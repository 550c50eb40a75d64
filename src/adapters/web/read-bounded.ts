import { joinChunks } from '../../core/blobs/join-chunks.js'

/**
 * Reads a whole stream into memory, or throws `tooLarge()` as soon as it passes `maxBytes`, having
 * read no more: what a Worker does where Node would write a scratch file (128 MiB per isolate).
 */
export async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw tooLarge()
    }
    chunks.push(value)
  }
  return joinChunks(chunks, size)
}
