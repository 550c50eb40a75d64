import { createWriteStream } from 'node:fs'
import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import type { DatabaseSnapshot, SnapshotCounts } from '../../core/db/database.js'
import type { ScratchCopy } from '../../core/ingest/scratch-copy.js'
import { readFileStream } from './file-stream.js'
import { diskFullOr } from './fs-blob-store.js'

/** A fresh path in `dir` (created if needed) for a scratch file that is removed after use. */
export async function scratchPath(dir: string, suffix: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  return join(dir, `${crypto.randomUUID()}${suffix}`)
}

/** Streams `body` into a new scratch file, flushed to disk; nothing is left behind on failure. */
export async function writeScratchFile(dir: string, suffix: string, body: ReadableStream<Uint8Array>): Promise<string> {
  const path = await scratchPath(dir, suffix)
  try {
    await pipeline(Readable.fromWeb(body as NodeWebStream<Uint8Array>), createWriteStream(path, { flush: true }))
    return path
  } catch (error) {
    await rm(path, { force: true })
    throw diskFullOr(error)
  }
}

/** A finished scratch file presented as a database snapshot. */
export async function snapshotFromFile(
  path: string,
  fileName: string,
  counts: SnapshotCounts,
): Promise<DatabaseSnapshot> {
  const { size } = await stat(path)
  return {
    fileName,
    size,
    counts,
    stream: () => readFileStream(path),
    dispose: () => rm(path, { force: true }),
  }
}

/** Streams `body` into a new scratch file in `dir` and reads it back by range (an uploaded zip being unpacked). */
export async function writeScratchCopy(dir: string, body: ReadableStream<Uint8Array>): Promise<ScratchCopy> {
  const path = await writeScratchFile(dir, '.upload', body)
  const { size } = await stat(path)
  const range = (start = 0, end = size - 1) => readFileStream(path, { start, end })
  return {
    source: {
      size,
      read: async (start, end) => new Uint8Array(await new Response(range(start, end)).arrayBuffer()),
      stream: range,
    },
    dispose: () => rm(path, { force: true }),
  }
}
