import { createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import type { BackupSink } from '../../core/backup/backup-sink.js'
import { readFileStream } from './file-stream.js'
import { errorCode } from './fs-blob-store.js'

const archiveNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*\.tar\.gz$/

/**
 * The local backup directory (`VAULT_BACKUP_DIR`). An archive is written to a hidden
 * temporary name, flushed to disk and renamed into place, so a listed archive is always
 * whole; a crash leaves only a `.partial-*` file that the next start removes.
 */
export async function createFsBackupSink(dir: string): Promise<BackupSink> {
  await mkdir(dir, { recursive: true })
  for (const name of await readdir(dir)) if (name.startsWith('.partial-')) await rm(join(dir, name), { force: true })
  const pathOf = (name: string) => {
    if (!archiveNamePattern.test(name)) throw new Error(`invalid archive name: ${JSON.stringify(name)}`)
    return join(dir, name)
  }
  return {
    kind: 'local',
    location: dir,
    async write(name, body) {
      const target = pathOf(name)
      const partial = join(dir, `.partial-${name}`)
      try {
        await pipeline(Readable.fromWeb(body as NodeWebStream<Uint8Array>), createWriteStream(partial, { flush: true }))
        await rename(partial, target)
      } catch (error) {
        await rm(partial, { force: true })
        throw error
      }
    },
    async read(name) {
      const path = pathOf(name)
      try {
        await stat(path)
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return null
        throw error
      }
      return readFileStream(path)
    },
    async list() {
      const archives = []
      for (const name of await readdir(dir)) {
        if (!archiveNamePattern.test(name)) continue
        const info = await stat(join(dir, name))
        archives.push({ name, size: info.size, modifiedAt: info.mtime })
      }
      return archives
    },
    async delete(name) {
      await rm(pathOf(name), { force: true })
    },
    async checkHealth() {
      const probe = join(dir, `.health-${crypto.randomUUID()}`)
      try {
        await (await open(probe, 'w')).close()
        await unlink(probe)
        return { status: 'pass', details: { directory_writable: true } }
      } catch (error) {
        return {
          status: 'fail',
          reason: `backup directory is not writable (${errorCode(error)})`,
          details: { directory_writable: false },
        }
      }
    },
  }
}
