import type { BlobStore } from './blob-store.js'
import type { CreateSha256, Sha256 } from './hasher.js'
import { joinChunks } from './join-chunks.js'

export interface StoredContent {
  sha256: string
  size: number
  /** False when the store already held these bytes and nothing new was written. */
  created: boolean
  /** The bytes themselves, when they were no more than the caller asked to keep (`keepUpTo`). */
  bytes?: Uint8Array
}

/**
 * Stores `body` under its SHA-256, hashing while the bytes stream to staging, so memory
 * stays flat at any size. Bytes the store already holds are discarded, not written again.
 * A body of at most `keepUpTo` bytes is also answered in `bytes`, so reading it next costs
 * no trip to the store.
 */
export async function putContentAddressed(
  store: BlobStore,
  createSha256: CreateSha256,
  body: ReadableStream<Uint8Array>,
  { keepUpTo = 0 } = {},
): Promise<StoredContent> {
  const hash = createSha256()
  const kept = keepUpTo > 0 ? keeping(keepUpTo) : undefined
  const hashed = body.pipeThrough(hashing(hash))
  const staged = await store.stage(kept ? hashed.pipeThrough(kept.stream) : hashed)
  const sha256 = hash.digestHex()
  const bytes = kept?.bytes()
  const stored = (created: boolean): StoredContent => ({
    sha256,
    size: staged.size,
    created,
    ...(bytes ? { bytes } : {}),
  })
  try {
    if (await store.stat(sha256)) {
      await staged.discard()
      return stored(false)
    }
    await staged.commit(sha256)
    return stored(true)
  } catch (error) {
    await staged.discard().catch(() => {})
    throw error
  }
}

/** Passes bytes through, keeping a copy while they total at most `limit`; `bytes()` is that copy, or undefined past it. */
function keeping(limit: number): { stream: TransformStream<Uint8Array, Uint8Array>; bytes(): Uint8Array | undefined } {
  let chunks: Uint8Array[] | undefined = []
  let total = 0
  return {
    stream: new TransformStream({
      transform(chunk, controller) {
        total += chunk.byteLength
        if (total > limit) chunks = undefined
        else chunks?.push(chunk.slice())
        controller.enqueue(chunk)
      },
    }),
    bytes: () => (chunks ? joinChunks(chunks, total) : undefined),
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
