/**
 * The stream's bytes regrouped into arrays of exactly `size` bytes, the last one shorter (never
 * empty, unless the stream is): the parts of a multipart upload, one held in memory at a time.
 */
export async function* fixedSizeParts(
  body: ReadableStream<Uint8Array>,
  size: number,
): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  let part = new Uint8Array(size)
  let filled = 0
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      let offset = 0
      while (offset < value.byteLength) {
        const take = Math.min(size - filled, value.byteLength - offset)
        part.set(value.subarray(offset, offset + take), filled)
        filled += take
        offset += take
        if (filled === size) {
          yield part
          part = new Uint8Array(size)
          filled = 0
        }
      }
    }
  } finally {
    reader.releaseLock()
  }
  if (filled > 0) yield part.subarray(0, filled)
}
