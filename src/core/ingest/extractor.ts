import type { BlobStore } from '../blobs/blob-store.js'
import { blobByteSource, memoryByteSource } from './blob-byte-source.js'
import { type Extracted, type ExtractOptions, extractFile } from './extract.js'
import type { FileFormat } from './file-formats.js'

/** A committed blob to read: its key (the SHA-256) and its size, and its bytes when they were kept in memory. */
export interface StoredBlob {
  sha256: string
  size: number
  bytes?: Uint8Array
}

/**
 * Reads a stored file for its metadata, mesh figures and thumbnail (`extractFile` on the
 * blob's bytes). A file that cannot be read, or whose reading goes over the runtime's time or
 * memory budget, resolves with a warning and no figures: it is kept as an opaque file. Rejects
 * with `FormatError('unsafe')` for files ingest must refuse, and with other errors when the
 * blob cannot be read at all.
 */
export type ExtractStoredFile = (format: FileFormat, blob: StoredBlob, options: ExtractOptions) => Promise<Extracted>

/**
 * Reads on the calling thread, with no budget of its own: for runtimes without threads, and
 * inside the Node adapter's worker threads (which bring the budgets).
 */
export function createInThreadExtractor(blobs: Pick<BlobStore, 'get'>): ExtractStoredFile {
  return (format, blob, options) =>
    extractFile(
      format,
      blob.bytes ? memoryByteSource(blob.bytes) : blobByteSource(blobs, blob.sha256, blob.size),
      options,
    )
}

/** Uploads up to this size are kept in memory while stored, and read for their figures on the request thread. */
export const smallFileBytes = 64 * 1024

/** Formats read in one pass over their bytes, with no archive to inflate: their cost follows their size. */
const onePassFormats: ReadonlySet<FileFormat> = new Set(['stl', 'obj', 'gcode'])

/**
 * Small one-pass files (a mesh or G-code up to `maxBytes`) read on the calling thread, all else by
 * `elsewhere` (the worker pool). Reading a few kilobytes takes well under a millisecond, less
 * than handing them to a worker and back; a folder import of small meshes is mostly such files.
 * Rendering always goes `elsewhere`.
 */
export function smallFilesInThread(
  inThread: ExtractStoredFile,
  elsewhere: ExtractStoredFile,
  maxBytes: number,
): ExtractStoredFile {
  return (format, blob, options) =>
    (!options.render && blob.size <= maxBytes && onePassFormats.has(format) ? inThread : elsewhere)(
      format,
      blob,
      options,
    )
}
