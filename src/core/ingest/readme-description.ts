import type { BlobStore } from '../blobs/blob-store.js'

/** As long as a description may be. */
const maxDescription = 10_000
/** Enough bytes for that many characters of any script. */
const maxReadmeBytes = 4 * maxDescription

/**
 * The text of a README the blob store holds under `sha256`, as a model's description: what
 * Printables and Thingiverse downloads say of the model. Its first bytes as UTF-8, invalid bytes
 * replaced, trimmed and cut at the length a description may have; undefined when that leaves
 * nothing.
 */
export async function readmeDescription(
  blobs: Pick<BlobStore, 'get'>,
  stored: { sha256: string; size: number },
): Promise<string | undefined> {
  const read = Math.min(stored.size, maxReadmeBytes)
  const body = read > 0 ? await blobs.get(stored.sha256, { start: 0, end: read - 1 }) : null
  if (!body) return undefined
  const text = new TextDecoder('utf-8').decode(await new Response(body.stream).arrayBuffer())
  // A cut through the last character leaves a replacement character: not part of the text.
  const whole = read < stored.size ? text.replace(/\uFFFD$/, '') : text
  return whole.trim().slice(0, maxDescription).trim() || undefined
}
