/**
 * Incremental SHA-256. Node injects its native implementation; runtimes without one use
 * `createPortableSha256` (@noble/hashes). Both produce lowercase hex digests.
 */
export interface Sha256 {
  update(chunk: Uint8Array): void
  /** Ends the hash; the instance must not be used afterwards. */
  digestHex(): string
}

export type CreateSha256 = () => Sha256
