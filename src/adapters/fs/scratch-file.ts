import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { readFileStream } from './file-stream.js'
import type { DatabaseSnapshot } from '../../core/db/database.js'

/** A fresh path in `dir` (created if needed) for a scratch file that is removed after use. */
export async function scratchPath(dir: string, suffix: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  return join(dir, `${crypto.randomUUID()}${suffix}`)
}

/** A finished scratch file presented as a database snapshot. */
export async function snapshotFromFile(path: string, fileName: string): Promise<DatabaseSnapshot> {
  const { size } = await stat(path)
  return {
    fileName,
    size,
    stream: () => readFileStream(path),
    dispose: () => rm(path, { force: true }),
  }
}
