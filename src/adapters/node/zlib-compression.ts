import { createGunzip, createGzip, type Gunzip, type Gzip } from 'node:zlib'
import type { Compression } from '../../core/runtime/compression.js'

/**
 * zlib behind TransformStreams with real backpressure: each input chunk is written only
 * when zlib has room and the reader has asked for more, so output waiting to be read stays
 * within about one chunk, whatever the sizes involved.
 */
export const zlibCompression: Compression = {
  gzip: () => transformOf(createGzip()),
  gunzip: () => transformOf(createGunzip()),
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
      return new Promise<void>((resolve, reject) => {
        // Resolve once zlib has taken the chunk, so its output is queued before the next one.
        zlib.write(chunk, (error) => (error ? reject(error) : resolve()))
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
