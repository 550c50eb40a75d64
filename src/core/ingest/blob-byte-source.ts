import type { BlobStore } from '../blobs/blob-store.js'
import type { ByteSource } from '../formats/types.js'

/** A stored blob as a ByteSource for the format readers: range reads straight from the store. */
export function blobByteSource(store: Pick<BlobStore, 'get'>, key: string, size: number): ByteSource {
  const open = async (start: number, end: number) => {
    const body = await store.get(key, { start, end })
    if (!body) throw new Error(`blob ${key} disappeared while it was being read`)
    return body.stream
  }
  return {
    size,
    async read(start, end) {
      if (size === 0 || end < start) return new Uint8Array(0)
      return new Uint8Array(await new Response(await open(start, Math.min(end, size - 1))).arrayBuffer())
    },
    stream(start = 0, end = size - 1) {
      if (size === 0 || end < start) return new ReadableStream({ start: (controller) => controller.close() })
      // Opened lazily on first pull, so creating a stream costs nothing until it is read.
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          reader ??= (await open(start, Math.min(end, size - 1))).getReader()
          const { done, value } = await reader.read()
          if (done) controller.close()
          else controller.enqueue(value)
        },
        cancel: (reason) => reader?.cancel(reason),
      })
    },
  }
}

/** Bytes already in memory (a small upload's, see `putContentAddressed`) as a ByteSource. */
export function memoryByteSource(bytes: Uint8Array): ByteSource {
  const size = bytes.byteLength
  return {
    size,
    read: async (start, end) => bytes.slice(start, Math.min(end, size - 1) + 1),
    stream(start = 0, end = size - 1) {
      return new ReadableStream({
        start(controller) {
          if (end >= start) controller.enqueue(bytes.slice(start, Math.min(end, size - 1) + 1))
          controller.close()
        },
      })
    },
  }
}
