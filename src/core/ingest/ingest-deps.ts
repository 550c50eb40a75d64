import type { AnalysisRunner } from '../analysis/analysis-runner.js'
import type { StorageDeps } from '../blobs/storage-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { ExtractStoredFile } from './extractor.js'
import type { RegistrationSlots } from './registration-slots.js'

/** What storing an upload takes. */
export interface IngestDeps extends Pick<RuntimeDeps, 'database' | 'clock' | 'logger' | 'metrics'>, StorageDeps {
  /**
   * Reads an uploaded file's metadata and thumbnail. On Node a bounded pool of worker threads,
   * each file within `VAULT_EXTRACT_TIMEOUT_MS` and `VAULT_EXTRACT_MEMORY_MB`, so a hostile
   * file never stalls other requests.
   */
  extractStoredFile: ExtractStoredFile
  /** Renders thumbnails and previews after the upload has answered; woken by each upload that queues work. */
  analysis: AnalysisRunner
}

/** What rendering the analysis queue's content takes (background-analysis.ts). */
export interface AnalysisDeps extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger'>, StorageDeps {
  extractStoredFile: ExtractStoredFile
}

/** What storing a zip's files takes besides: the bound on registrations at once and on each file. */
export interface ArchiveIngestDeps extends IngestDeps {
  /**
   * How many uploads of this app are read and registered at once (reader, mesh figures,
   * thumbnail, the database transaction), by size; the rest wait with their bytes already staged.
   * Bounds an upload burst's memory and lets list and search requests interleave with it.
   */
  registrations: RegistrationSlots
  /** `VAULT_MAX_UPLOAD_BYTES`. */
  maxUploadBytes: number
}
