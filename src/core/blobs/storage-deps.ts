import type { BlobStore } from './blob-store.js'
import type { CreateSha256 } from './hasher.js'

/** The stores of file content, and the hashing that names it. */
export interface StorageDeps {
  /** Uploaded files, keyed by SHA-256. */
  blobs: BlobStore
  /** Thumbnails, kept apart from blobs so backups and volumes can treat them separately. */
  thumbnails: BlobStore
  createSha256: CreateSha256
}
