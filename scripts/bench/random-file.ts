import { randomBytes } from 'node:crypto'
import { closeSync, openSync, writeSync } from 'node:fs'

/** Writes `mib` MiB of random bytes to `path`, one MiB at a time. */
export function writeRandomFile(path: string, mib: number): void {
  const chunk = randomBytes(1024 * 1024)
  const fd = openSync(path, 'w')
  for (let i = 0; i < mib; i++) {
    chunk.writeUInt32LE(i, 0) // every MiB differs, so nothing downstream can shortcut repeats
    writeSync(fd, chunk)
  }
  closeSync(fd)
}
