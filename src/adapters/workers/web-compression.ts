import type { Compression } from '../../core/runtime/compression.js'

/** gzip through the runtime's `CompressionStream` (workerd's holds back as a stream should). */
export const webCompression: Compression = {
  gzip: () => new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>,
  gunzip: () => new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>,
}
