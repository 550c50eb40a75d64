import type { ConfirmedCredentials } from './accounts/confirmed-credentials.js'
import type { PasswordHasher } from './accounts/password-hasher.js'
import type { BackupSink } from './backup/backup-sink.js'
import type { BlobStore } from './blobs/blob-store.js'
import type { CreateSha256 } from './blobs/hasher.js'
import type { VaultDatabase } from './db/database.js'
import type { ExtractStoredFile } from './ingest/extractor.js'
import type { ReadMultipart } from './ingest/multipart.js'
import type { WriteScratchCopy } from './ingest/scratch-copy.js'
import type { KeyRing } from './key-ring.js'
import type { Metrics } from './metrics/metrics.js'
import type { PrinterProviderKind } from './printers/provider-kind.js'
import type { PrinterStatusCache } from './printers/status-cache.js'
import type { Clock } from './runtime/clock.js'
import type { Compression } from './runtime/compression.js'
import type { Logger } from './runtime/logger.js'
import type { ProcessLiveness } from './runtime/process-liveness.js'
import type { Semaphore } from './runtime/semaphore.js'

/** Who is answering: reported by health so a failing replica can be told apart. */
export interface ServiceIdentity {
  name: string
  version: string
  /** Random per process. */
  instanceId: string
  startedAt: string
}

/** How a UI build may hold a file compressed ahead of time, besides as it is. */
export type UiAssetEncoding = 'br' | 'gzip'

/** A file's bytes, and how `body` is encoded (absent: as it is). */
export interface EncodedAsset {
  body: Uint8Array<ArrayBuffer>
  encoding?: UiAssetEncoding
}

/** Static files of the API reference viewers (Swagger UI, ReDoc), served without a CDN. */
export type DocsAssetName = 'swagger-ui.css' | 'swagger-ui-bundle.js' | 'redoc.standalone.js'
/**
 * Reads a viewer's file in the first of `encodings` the runtime holds it in (Brotli or gzip,
 * compressed once), else as it is. Rejects where the runtime has no such files.
 */
export type GetDocsAsset = (name: DocsAssetName, encodings?: readonly UiAssetEncoding[]) => Promise<EncodedAsset>

/** A file of the built web UI, its `Content-Type`, and how `body` is encoded (absent: as it is). */
export interface UiAsset extends EncodedAsset {
  type: string
}
/**
 * Reads a file of the built web UI by its path relative to the build's root (`index.html`,
 * `assets/index-3f2a.js`): the first of `encodings` the build holds it in, else as it is.
 * Resolves undefined when there is no such file, when the path would leave the build's root, or
 * when the UI was not built.
 */
export type GetUiAsset = (path: string, encodings?: readonly UiAssetEncoding[]) => Promise<UiAsset | undefined>

/**
 * Everything the app needs from its runtime. Each runtime entry (Node today) builds one
 * `Deps` and hands it to `createApp`; routes reach it through `c.var.deps`, never through
 * globals or `process.env`.
 */
export interface Deps {
  service: ServiceIdentity
  database: VaultDatabase
  /** Uploaded files, keyed by SHA-256. */
  blobs: BlobStore
  /** Thumbnails, kept apart from blobs so backups and volumes can treat them separately. */
  thumbnails: BlobStore
  createSha256: CreateSha256
  /** gzip for backup archives. */
  compression: Compression
  /** Where backup archives go and how long they are kept. */
  backups: {
    /** The backup directory: every archive is written here first, and restores look here first. */
    local: BackupSink
    /**
     * The optional bucket (`VAULT_BACKUP_S3_*`) each finished archive is copied to. One at most:
     * a backup record holds one copy status.
     */
    offsite: BackupSink | null
    /** `VAULT_BACKUP_RETENTION_DAYS`: archives older than this are pruned; 0 keeps them all. */
    retentionDays: number
    /**
     * The most a backup (its files' bytes) or a restore (its archive's bytes) may hold where the
     * runtime bounds it, and why (Cloudflare Workers: a backup runs in the 30 s a Worker may go on
     * after its answer); larger ones answer 501. Absent: unbounded.
     */
    limit?: { bytes: number; reason: string }
  }
  /** Garbage collection keeps blobs younger than this (`VAULT_GC_GRACE_MINUTES`). */
  gcGraceMs: number
  clock: Clock
  /**
   * This process's host and pid, and whether another process of the host still runs: a lock
   * whose holder is gone is taken over at once. Null where the runtime cannot tell; such locks
   * are taken over once their lease lapses.
   */
  liveness: ProcessLiveness | null
  logger: Logger
  getDocsAsset: GetDocsAsset
  getUiAsset: GetUiAsset
  /** The token-signing keys and the printer-credentials cipher; read with `keys.current()` at use time. */
  keys: KeyRing
  /**
   * Sessions and API keys found live within `VAULT_SESSION_RECHECK_MS`: the bound on how long a
   * revocation made by another process takes to reach this one.
   */
  confirmedCredentials: ConfirmedCredentials
  auth: {
    passwordHasher: PasswordHasher
    /** A hash checked when the username is unknown, so unknown and known users cost the same. */
    decoyPasswordHash: string
  }
  /**
   * Reads an uploaded file's metadata and thumbnail. On Node a bounded pool of worker threads,
   * each file within `VAULT_EXTRACT_TIMEOUT_MS` and `VAULT_EXTRACT_MEMORY_MB`, so a hostile
   * file never stalls other requests.
   */
  extractStoredFile: ExtractStoredFile
  /**
   * How many uploads of this app are read and registered at once (reader, mesh figures,
   * thumbnail, the database transaction); the rest wait with their bytes already staged. Bounds
   * an upload burst's memory and lets list and search requests interleave with it.
   */
  registrations: Semaphore
  /**
   * How many upload bodies this app reads at once, from the first byte until the file is staged
   * (hashed into the blob store, or copied to scratch for a zip). The others wait unread, their
   * bytes in the kernel's socket buffers rather than in this process: each body being read holds
   * a chunk in every stage from socket to disk, so 200 at once held ~150 MiB. A body holds its
   * slot for a lease at most (then reads on outside the bound), so slow senders cannot hold up
   * everyone else's uploads.
   */
  uploadBodies: Semaphore
  /** Streams multipart uploads (busboy on Node). */
  readMultipart: ReadMultipart
  /** Holds an uploaded zip on local scratch disk while it is unpacked (never in the blob store). */
  writeScratchCopy: WriteScratchCopy
  /** `VAULT_MAX_UPLOAD_BYTES`. */
  maxUploadBytes: number
  /** `VAULT_MAX_BODY_BYTES`: the bound on every request body but a file upload's. */
  maxBodyBytes: number
  /** Public base URL (`VAULT_PUBLIC_URL`); absent means "derive from the request". */
  publicUrl?: string
  /** `VAULT_DOWNLOAD_LINK_TTL_S`: how long a signed download link (open in slicer) works. */
  downloadLinkTtlSeconds: number
  /** Request and upload counters for `/metrics`; absent when metrics are off (`VAULT_METRICS_TOKEN` unset). */
  metrics?: Metrics
  /** The printer provider kinds this runtime offers, this app's status cache, and the timeouts. */
  printers: {
    providers: readonly PrinterProviderKind[]
    statusCache: PrinterStatusCache
    /** Per-request timeout towards a printer. */
    timeoutMs: number
    /** How long `send` waits for a started printer to show that it prints. */
    confirmMs: number
  }
}
