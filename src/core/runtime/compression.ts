/**
 * gzip as web transform streams. Injected because runtimes differ in how well their
 * built-in `CompressionStream` holds back: Node 20's queues by chunk count and buffered
 * hundreds of MiB in a backup whose disk was slower than its source (Node uses zlib
 * directly instead; a runtime whose `CompressionStream` holds back can wrap that).
 */
export interface Compression {
  gzip(): TransformStream<Uint8Array, Uint8Array>
  gunzip(): TransformStream<Uint8Array, Uint8Array>
}
