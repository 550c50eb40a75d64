import type { AccountsDeps } from './accounts/accounts-deps.js'
import type { BackupDeps } from './backup/backup-deps.js'
import type { StorageDeps } from './blobs/storage-deps.js'
import type { DownloadDeps } from './downloads/download-deps.js'
import type { EventsDeps } from './events/events-deps.js'
import type { DispatchLoop } from './farm/dispatch-loop.js'
import type { ArchiveIngestDeps } from './ingest/ingest-deps.js'
import type { ReadMultipart } from './ingest/multipart.js'
import type { WriteScratchCopy } from './ingest/scratch-copy.js'
import type { LibraryDeps } from './library/library-deps.js'
import type { PrintersDeps } from './printers/printers-deps.js'
import type { RuntimeDeps } from './runtime/runtime-deps.js'
import type { Semaphore } from './runtime/semaphore.js'
import type { GetDocsAsset, GetUiAsset } from './ui-files.js'

/**
 * Everything the app needs from its runtime. Each core module declares the part it takes
 * (`RuntimeDeps`, `StorageDeps`, `AccountsDeps`, `BackupDeps`, `IngestDeps`, `LibraryDeps`,
 * `DownloadDeps`, `EventsDeps`, `PrintersDeps`); this is their sum, plus what only the routes read. Each runtime
 * entry (Node, Workers) builds one and hands it to `createApp`; routes reach it through
 * `c.var.deps`, never through globals or `process.env`.
 */
export interface Deps
  extends RuntimeDeps,
    StorageDeps,
    AccountsDeps,
    BackupDeps,
    ArchiveIngestDeps,
    LibraryDeps,
    DownloadDeps,
    EventsDeps,
    PrintersDeps {
  /** Garbage collection keeps blobs younger than this (`VAULT_GC_GRACE_MINUTES`). */
  gcGraceMs: number
  getDocsAsset: GetDocsAsset
  getUiAsset: GetUiAsset
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
  /** `VAULT_MAX_BODY_BYTES`: the bound on every request body but a file upload's. */
  maxBodyBytes: number
  /** Public base URL (`VAULT_PUBLIC_URL`); absent means "derive from the request". */
  publicUrl?: string
  /** This process's print queue dispatcher; absent where the runtime runs none (Workers, `VAULT_QUEUE_INTERVAL_MS=0`). */
  printQueue?: DispatchLoop
}
