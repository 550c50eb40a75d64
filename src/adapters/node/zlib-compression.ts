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
const options: ZlibOptions & { highWaterMark: number } = { highWaterMark: inFlightBytes }

export const zlibCompression: Compression = {
  gzip: () => transformOf(createGzip(options)),
  gunzip: () => transformOf(createGunzip(options)),
}

function transformOf(zlib: Gzip | Gunzip): TransformStream<Uint8Array, Uint8Array> {
  let failure: Error | undefined
  zlib.on('error', (error) => (failure = error))
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      zlib.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)))
      zlib.on('error', (error) => controller.error(error))
    },
    transform(chunk) {
      if (failure) throw failure
      if (zlib.write(chunk)) return
      return new Promise<void>((resolve, reject) => {
        const settle = (error?: Error) => {
          zlib.off('drain', settle)
          zlib.off('error', settle)
          if (error) reject(error)
          else resolve()
        }
        zlib.once('drain', settle)
        zlib.once('error', settle)
      })
    },
    flush() {
      return new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure)
        zlib.once('end', resolve)
        zlib.once('error', reject)
        zlib.end()
      })
    },
  })
}
