import type { ByteSource } from '../formats/types.js'

/** Bytes held on this process's scratch disk while they are read, outside the blob store. */
export interface ScratchCopy {
  source: ByteSource
  /** Removes the copy; calling it again does nothing. */
  dispose(): Promise<void>
}

/**
 * Streams `body` into a fresh scratch file of this process (one per call, so concurrent
 * uploads of the same bytes never share one). Fails, leaving nothing behind, when the stream
 * errors or the disk is full. A process that is killed leaves its copies to the next start's sweep.
 */
export type WriteScratchCopy = (body: ReadableStream<Uint8Array>) => Promise<ScratchCopy>
