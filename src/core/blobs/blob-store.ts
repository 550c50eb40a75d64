import type { HealthCheckable } from '../health/component.js'

/**
 * Where file bytes live. One store holds one namespace (blobs, thumbnails); keys are chosen
 * by the core (content hashes) and must match `isValidBlobKey`, so no key can escape the store.
 *
 * Writes are two-phase: `stage` streams the bytes somewhere invisible, and only `commit`
 * makes them readable under a key. A crash between the two leaves at most an orphaned
 * staging file, never a half-written blob under a real key.
 */
export interface BlobStore extends HealthCheckable {
  /** `local`, `s3`, …: shown in health and backup manifests. */
  readonly kind: string
  /** Streams `body` to staging. Fails (and cleans up) if the stream errors. */
  stage(body: ReadableStream<Uint8Array>): Promise<StagedBlob>
  /** Streams the blob, or the inclusive byte range of it; null when the key is absent. */
  get(key: string, range?: ByteRange): Promise<BlobBody | null>
  /** Size of the blob, or null when the key is absent. */
  stat(key: string): Promise<{ size: number } | null>
  /** Removes the blob; removing an absent key is not an error. */
  delete(key: string): Promise<void>
  /**
   * Every committed blob, in no particular order, with when it was written (committed, or
   * for a local store when its bytes were last written): the garbage collector's grace
   * period reads it.
   */
  list(): AsyncIterable<ListedBlob>
  /**
   * Removes staged bytes that no live writer will commit (left by a process that was
   * killed), and says what went. Never touches a live upload, however long it pauses.
   */
  removeLeftovers(): Promise<Leftovers>
}

export interface ListedBlob {
  key: string
  size: number
  modifiedAt: Date
}

/** Leftovers of stopped work that were removed: how many files and their bytes. */
export interface Leftovers {
  files: number
  bytes: number
}

export interface StagedBlob {
  readonly size: number
  /**
   * Makes the staged bytes readable under `key` in one step. An existing blob under the key is
   * kept or replaced whole; callers use content hashes as keys, so it has the same bytes.
   */
  commit(key: string): Promise<void>
  /** Throws the staged bytes away. */
  discard(): Promise<void>
}

/** Inclusive byte offsets, as in an HTTP `Range` header. */
export interface ByteRange {
  start: number
  end: number
}

export interface BlobBody {
  stream: ReadableStream<Uint8Array>
  /** Size of the whole blob, not of the range. */
  size: number
}

const blobKeyPattern = /^[a-z0-9][a-z0-9._-]{0,127}$/

export function isValidBlobKey(key: string): boolean {
  return blobKeyPattern.test(key) && !key.includes('..')
}

export function assertValidBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new Error(`invalid blob key: ${JSON.stringify(key)}`)
}
