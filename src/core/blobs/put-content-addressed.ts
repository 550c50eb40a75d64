import type { BlobStore } from './blob-store.js'
import type { CreateSha256, Sha256 } from './hasher.js'

export interface StoredContent {
  sha256: string
  size: number
  /** False when the store already held these bytes and nothing new was written. */
  created: boolean
}

/**
 * Stores `body` under its SHA-256, hashing while the bytes stream to staging, so memory
 * stays flat at any size. Bytes the store already holds are discarded, not written again.
 */
export async function putContentAddressed(
  store: BlobStore,
  createSha256: CreateSha256,
  body: ReadableStream<Uint8Array>,
): Promise<StoredContent> {
  const hash = createSha256()
  const staged = await store.stage(body.pipeThrough(hashing(hash)))
  const sha256 = hash.digestHex()
  try {
    if (await store.stat(sha256)) {
      await staged.discard()
      return { sha256, size: staged.size, created: false }
    }
    await staged.commit(sha256)
    return { sha256, size: staged.size, created: true }
  } catch (error) {
    await staged.discard().catch(() => {})
    throw error
  }
}

/** A one-chunk stream of `bytes`, for storing something already in memory (a thumbnail). */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes)
      controller.close()
    },
  })
}

/** Passes bytes through unchanged, feeding each chunk to `hash` on the way. */
export function hashing(hash: Sha256): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      hash.update(chunk)
      controller.enqueue(chunk)
    },
  })
}
