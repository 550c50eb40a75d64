import { parentPort, workerData } from 'node:worker_threads'
import type { StorageConfig } from '../../core/config/config.js'
import { FormatError } from '../../core/formats/types.js'
import type { Extracted, ExtractOptions } from '../../core/ingest/extract.js'
import { createInThreadExtractor, type StoredBlob } from '../../core/ingest/extractor.js'
import type { FileFormat } from '../../core/ingest/file-formats.js'
import { openBlobReader } from './storage.js'

/** What the pool hands a worker at start: enough to open the blob store itself. */
export interface ExtractWorkerData {
  storage: StorageConfig
}

export interface ExtractJob {
  format: FileFormat
  blob: StoredBlob
  options: ExtractOptions
}

/** `ready` once at start, then one answer per job, in order. */
export type ExtractReply =
  | { kind: 'ready' }
  | { kind: 'done'; extracted: Extracted }
  | { kind: 'failed'; unsafe: boolean; message: string }

/**
 * The worker thread of `createWorkerExtractor`: reads one file at a time straight from the
 * blob store (the bytes never cross the thread boundary) and answers with what it found;
 * thumbnail and preview bytes are transferred, not copied.
 */
async function serve(port: NonNullable<typeof parentPort>, { storage }: ExtractWorkerData): Promise<void> {
  const extract = createInThreadExtractor(await openBlobReader(storage))
  port.on('message', async ({ format, blob, options }: ExtractJob) => {
    try {
      const extracted = await extract(format, blob, options)
      const thumbnail = extracted.thumbnail && { ...extracted.thumbnail, bytes: extracted.thumbnail.bytes.slice() }
      const reply: ExtractReply = { kind: 'done', extracted: { ...extracted, thumbnail } }
      // A preview owns its whole buffer; a thumbnail may be a view into a file's bytes, hence its copy.
      const preview = extracted.preview?.bytes.buffer
      port.postMessage(
        reply,
        [thumbnail?.bytes.buffer, preview].filter((buffer) => buffer !== undefined),
      )
    } catch (error) {
      const reply: ExtractReply = {
        kind: 'failed',
        unsafe: error instanceof FormatError && error.kind === 'unsafe',
        message: error instanceof Error ? error.message : String(error),
      }
      port.postMessage(reply)
    }
  })
  port.postMessage({ kind: 'ready' } satisfies ExtractReply)
}

if (parentPort) await serve(parentPort, workerData as ExtractWorkerData)
