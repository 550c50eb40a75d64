import tar from 'tar-stream'
import type { CreateSha256 } from '../blobs/hasher.js'
import type { ManifestEntry } from './manifest.js'

/** A tar archive being written entry by entry, readable as a web stream. */
export interface TarWriter {
  /** The archive bytes, as they are produced. */
  readonly stream: ReadableStream<Uint8Array>
  /** Adds a file entry from a stream of exactly `size` bytes; resolves with its size and hash. */
  add(path: string, size: number, source: ReadableStream<Uint8Array>): Promise<ManifestEntry>
  finish(): void
  fail(error: Error): void
}

/**
 * tar-stream's packer behind web streams, hashing each entry as it passes so the manifest
 * costs no second read. Backpressure holds end to end: an entry waits for the packer to
 * drain, and the packer is read only as fast as the consumer (gzip, then disk) pulls.
 */
export function createTarWriter(createSha256: CreateSha256, mtime: Date, onBytes: (bytes: number) => void): TarWriter {
  const pack = tar.pack()
  // A failure (a full disk downstream, a changed file) reaches callers through `add` and the
  // stream, the first one as it was ("ENOSPC", not "pack stream destroyed"); an 'error' event
  // nobody listened to would instead end the process.
  let failure: Error | undefined
  pack.on('error', (error: Error) => {
    failure ??= error
  })
  const chunks = pack[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>
  return {
    stream: new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await chunks.next()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => void pack.destroy(reason instanceof Error ? reason : new Error(String(reason))),
    }),
    async add(path, size, source) {
      const hash = createSha256()
      let written = 0
      const reader = source.getReader()
      await new Promise<void>((resolve, reject) => {
        if (failure) throw failure
        const entry = pack.entry({ name: path, size, mode: 0o644, mtime, type: 'file' }, (error) => {
          if (!error) return resolve()
          // The source is released at once (an open file, a database cursor), not when collected.
          reader.cancel(error).catch(() => {})
          reject(failure ?? error)
        })
        entry.on('error', () => {})
        void (async () => {
          for (;;) {
            const { value, done } = await reader.read()
            if (done) break
            hash.update(value)
            written += value.byteLength
            onBytes(value.byteLength)
            if (!entry.write(value) && !entry.destroyed) await drained(entry)
            if (entry.destroyed) throw failure ?? new Error(`${path} was not archived: the archive stopped`)
          }
          if (written !== size)
            throw new Error(`${path} changed while it was archived (${written} bytes instead of ${size})`)
          ;(entry as unknown as { end(): void }).end()
        })().catch((error: Error) => {
          reader.cancel(error).catch(() => {})
          entry.destroy(error)
          reject(error)
        })
      })
      return { path, size, sha256: hash.digestHex() }
    },
    finish: () => void pack.finalize(),
    fail(error) {
      failure ??= error
      pack.destroy(error)
    },
  }
}

interface Drainable {
  once(event: 'drain' | 'close', listener: () => void): unknown
  off(event: 'drain' | 'close', listener: () => void): unknown
}

/**
 * Resolves when a stream that refused a write can take more, or when it has closed: a
 * destroyed stream never drains, and waiting for it alone would hang the archive forever.
 */
export function drained(stream: Drainable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done)
      stream.off('close', done)
      resolve()
    }
    stream.once('drain', done)
    stream.once('close', done)
  })
}
