import type { AnalysisRunner } from '../../core/analysis/analysis-runner.js'
import type { BlobStore } from '../../core/blobs/blob-store.js'
import { createInThreadExtractor, type ExtractStoredFile } from '../../core/ingest/extractor.js'

/**
 * Reads uploaded files on the request's own thread (a Worker has no worker threads), only those
 * up to `maxBytes`: reading a mesh and rendering its thumbnail costs CPU in proportion to its
 * size, and a Worker's CPU time per request is bounded. A larger file is stored as an opaque file
 * with a warning that says so, like a file over the Node readers' budgets. It always renders
 * while it reads (`render: false` is not heeded): a Worker has no background in which to render
 * later, so nothing is queued for analysis (see `idleAnalysis`).
 */
export function createBoundedExtractor(blobs: Pick<BlobStore, 'get'>, maxBytes: number): ExtractStoredFile {
  const read = createInThreadExtractor(blobs)
  return async (format, blob, options) =>
    blob.size > maxBytes
      ? {
          metadata: {},
          warnings: [
            `Not read: on Cloudflare Workers only files up to ${maxBytes} bytes are read for their figures and thumbnail (VAULT_WORKERS_READ_MAX_BYTES); the file is stored whole.`,
          ],
        }
      : read(format, blob, { ...options, render: true })
}

/** The analysis runner of a runtime that renders while it reads: never anything queued to run. */
export const idleAnalysis: AnalysisRunner = { wake() {}, uploadArrived() {}, idle: () => Promise.resolve() }
