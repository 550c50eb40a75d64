/** `chunks` as one array of `size` bytes (their total). */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.byteLength
  }
  return joined
}
