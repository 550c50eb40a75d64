import type { StorageDeps } from '../blobs/storage-deps.js'
import type { ExtractStoredFile } from '../ingest/extractor.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'

/** The background analysis: what renders thumbnails and previews after an upload has answered. */
export interface AnalysisRunner {
  /** Tells the runner there is new work; it also looks by itself every few seconds. */
  wake(): void
  /** Resolves once the queue holds nothing this runner could take and nothing is being rendered. */
  idle(): Promise<void>
}

/** What rendering queued content takes. */
export interface AnalysisDeps extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger'>, StorageDeps {
  extractStoredFile: ExtractStoredFile
}
