import { type ByteSource, FormatError } from './types.js'

/**
 * A ByteSource over bytes already in memory (tests, small files). `read` returns copies;
 * `stream` hands out views of `chunkSize` bytes so readers meet chunk boundaries as they
 * would on a real store. Ranges are inclusive, as in `ByteSource.read`; a range outside the
 * bytes throws a RangeError.
 */
export function byteSourceFromBytes(bytes: Uint8Array, options: { chunkSize?: number } = {}): ByteSource {
  const chunkSize = options.chunkSize ?? 64 * 1024
  const checkRange = (start: number, end: number) => {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end >= bytes.length || end < start - 1) {
      throw new RangeError(`bytes ${start}-${end} are outside a source of ${bytes.length} bytes`)
    }
  }
  return {
    size: bytes.length,
    async read(start, end) {
      checkRange(start, end)
      return bytes.slice(start, end + 1)
    },
    stream(start = 0, end = bytes.length - 1) {
      checkRange(start, end)
      let position = start
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (position > end) {
            controller.close()
            return
          }
          const next = Math.min(position + chunkSize, end + 1)
          controller.enqueue(bytes.subarray(position, next))
          position = next
        },
      })
    },
  }
}

/** Feeds every chunk of a stream to `onChunk`, in order; cancels the stream if `onChunk` throws. */
export async function forEachChunk(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      onChunk(value)
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined)
    throw error
  } finally {
    reader.releaseLock()
  }
}

/**
 * Decodes a UTF-8 stream and calls `onLine` with each line (without its `\n` or `\r\n`) and
 * its 1-based number. Memory stays flat: a line longer than `maxLineLength` characters is
 * a malformed file, not a reason to buffer it.
 */
export async function forEachLine(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string, lineNumber: number) => void,
  maxLineLength = 64 * 1024,
): Promise<void> {
  const decoder = new TextDecoder('utf-8')
  let pending = ''
  let lineNumber = 0
  const emitLines = (text: string, final: boolean) => {
    let start = 0
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline
      onLine(text.slice(start, end), ++lineNumber)
      start = newline + 1
    }
    pending = text.slice(start)
    if (pending.length > maxLineLength) {
      throw new FormatError(
        'malformed',
        `Line ${lineNumber + 1} is longer than ${maxLineLength} characters; this is not a text file of the expected kind.`,
      )
    }
    if (final && pending.length > 0) onLine(pending.endsWith('\r') ? pending.slice(0, -1) : pending, ++lineNumber)
  }
  await forEachChunk(stream, (chunk) => emitLines(pending + decoder.decode(chunk, { stream: true }), false))
  emitLines(pending + decoder.decode(), true)
}
