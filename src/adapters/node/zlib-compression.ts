import { createGunzip, createGzip, type Gunzip, type Gzip, type ZlibOptions } from 'node:zlib'
import type { Compression } from '../../core/runtime/compression.js'

/** Input zlib may hold while it works: enough to keep it busy while JavaScript hashes the next chunk. */
const inFlightBytes = 1024 * 1024

/**
 * zlib behind TransformStreams with real backpressure: a chunk is taken only while zlib has
 * less than about 1 MiB waiting and the reader has asked for more, so memory stays bounded
 * whatever the sizes involved, while zlib (on the thread pool) and JavaScript overlap.
 */
// zlib streams pass their options on to stream.Transform, though ZlibOptions does not declare it.
// Output in 256 KiB chunks rather than zlib's default 16 KiB: each chunk then crosses the web
// streams, the tar parser and the hash once per 256 KiB, not sixteen times.
const options: ZlibOptions & { highWaterMark: number } = { highWaterMark: inFlightBytes, chunkSize: 256 * 1024 }

export const zlibCompression: Compression = {
  gzip: () => transformOf(createGzip(options)),
  gunzip: () => transformOf(createGunzip(options)),
}

/**
 * One error path: zlib's `error` event errors the stream (and the reader sees it); pending
 * writes and the final flush then just stop waiting. Rejecting them too would leave a second,
 * unobserved rejection behind (a truncated archive's "unexpected end of file").
 */
function transformOf(zlib: Gzip | Gunzip): TransformStream<Uint8Array, Uint8Array> {
  let failed = false
  const settled = (event: 'drain' | 'end') =>
    new Promise<void>((resolve) => {
      const done = () => {
        zlib.off(event, done)
        zlib.off('error', done)
        zlib.off('close', done)
        resolve()
      }
      zlib.once(event, done)
      zlib.once('error', done)
      zlib.once('close', done)
    })
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      zlib.on('data', (chunk: Buffer) => {
        try {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        } catch {
          // The reader cancelled (a refused archive stops being read): stop zlib instead of
          // throwing from an event handler, which would crash the process.
          failed = true
          zlib.destroy()
        }
      })
      zlib.on('error', (error) => {
        failed = true
        controller.error(error)
      })
    },
    transform(chunk) {
      if (failed || zlib.write(chunk)) return
      return settled('drain')
    },
    flush() {
      if (failed) return
      const ended = settled('end')
      zlib.end()
      return ended
    },
  })
}
