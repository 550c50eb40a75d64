import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { assertValidBlobKey, type BlobStore } from '../../core/blobs/blob-store.js'
import type { StorageConfig } from '../../core/config/config.js'
import { FormatError } from '../../core/formats/types.js'
import type { Extracted } from '../../core/ingest/extract.js'
import { createInThreadExtractor, type StoredBlob } from '../../core/ingest/extractor.js'
import type { FileFormat } from '../../core/ingest/file-formats.js'
import { readFileStream } from '../fs/file-stream.js'

/** What the pool hands a worker at start: enough to open the blob store itself. */
export interface ExtractWorkerData {
  storage: StorageConfig
}

export interface ExtractJob {
  format: FileFormat
  blob: StoredBlob
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
  port.on('message', async ({ format, blob }: ExtractJob) => {
    try {
      const extracted = await extract(format, blob)
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

/**
 * Read access to the blobs. For a local store this is `createFsBlobStore`'s layout
 * (`<root>/<first two key chars>/<key>`) without the store itself, whose creation also
 * sweeps the staging directory: that is the main thread's business. The S3 client is loaded only
 * for an S3 store: it costs every worker ~16 MiB otherwise.
 */
async function openBlobReader(storage: StorageConfig): Promise<Pick<BlobStore, 'get'>> {
  if (storage.kind === 's3') {
    const { s3 } = storage
    const [{ createS3BlobStore }, { createS3Client }] = await Promise.all([
      import('../s3/s3-blob-store.js'),
      import('../s3/s3-client.js'),
    ])
    return createS3BlobStore({ client: createS3Client(s3), bucket: s3.bucket, prefix: `${s3.prefix}blobs/` })
  }
  return {
    async get(key, range) {
      assertValidBlobKey(key)
      const path = join(storage.blobDir, key.slice(0, 2), key)
      const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null
        throw error
      })
      return info && { stream: readFileStream(path, range), size: info.size }
    },
  }
}

if (parentPort) await serve(parentPort, workerData as ExtractWorkerData)
