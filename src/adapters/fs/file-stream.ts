import { type FileHandle, open } from 'node:fs/promises'

const chunkBytes = 256 * 1024

/**
 * A file (or the inclusive byte range of it) as a web stream that reads one chunk per pull,
 * so memory is bounded by what the reader holds, however slow it is. Node 20's
 * `Readable.toWeb` queues by chunk count and can run far ahead of a slow reader.
 */
export function readFileStream(path: string, range?: { start: number; end: number }): ReadableStream<Uint8Array> {
  let handle: FileHandle | undefined
  let cancelled = false
  let position = range?.start ?? 0
  const end = range ? range.end + 1 : Number.POSITIVE_INFINITY
  const close = async () => {
    const opened = handle
    handle = undefined
    await opened?.close()
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!handle) {
            const opened = await open(path, 'r')
            // Cancelled while the file was opening (a client that went away): close it now, not at collection.
            if (cancelled) return void (await opened.close())
            handle = opened
          }
          const length = Math.min(chunkBytes, end - position)
          const buffer = new Uint8Array(Math.max(length, 0))
          const { bytesRead } = length > 0 ? await handle.read(buffer, 0, length, position) : { bytesRead: 0 }
          if (bytesRead === 0) {
            await close()
            return controller.close()
          }
          position += bytesRead
          controller.enqueue(bytesRead === length ? buffer : buffer.subarray(0, bytesRead))
        } catch (error) {
          await close().catch(() => {})
          controller.error(error)
        }
      },
      cancel() {
        cancelled = true
        return close()
      },
    },
    // Nothing is read ahead: the file opens at the first read, so a stream that is made and never
    // read (a 304, a HEAD, an answer given up) holds no file handle for the garbage collector to close.
    { highWaterMark: 0 },
  )
}
