import { type FileHandle, mkdir, open, readdir, rename, rm, stat, statfs, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { assertValidBlobKey, type BlobStore, type Leftovers, type StagedBlob } from '../../core/blobs/blob-store.js'
import { VaultError } from '../../core/errors.js'
import type { ComponentHealth } from '../../core/health/component.js'
import { readFileStream } from './file-stream.js'
import { groupedSync } from './grouped-sync.js'
import { claimProcessDir } from './process-dir.js'

const stagingDirName = '.staging'
const lowDiskBytes = 1024 ** 3

/**
 * Read access alone to a local store's blobs, in its layout, without claiming a staging directory
 * (or sweeping others'): what a reader on another thread needs.
 */
export function createFsBlobReader(root: string): Pick<BlobStore, 'get'> {
  return {
    async get(key, range) {
      assertValidBlobKey(key)
      const path = join(root, key.slice(0, 2), key)
      const info = await statOrNull(path)
      if (!info) return null
      return { stream: readFileStream(path, range), size: info.size }
    },
  }
}

/**
 * A blob store in a local directory: `<root>/<first two key chars>/<key>`.
 * Bytes are streamed to `<root>/.staging/<this process's directory>/`, flushed to disk, then
 * renamed into place, so a blob is either absent or whole. Staging sits inside the root so
 * the rename never crosses filesystems (each Docker volume is its own filesystem). Staged
 * files of processes that are gone are removed at start-up and every ten minutes (see
 * `claimProcessDir`); `onLeftoversRemoved` hears what went.
 */
export async function createFsBlobStore(
  root: string,
  onLeftoversRemoved?: (removed: Leftovers) => void,
): Promise<BlobStore> {
  const staging = await claimProcessDir(join(root, stagingDirName), onLeftoversRemoved)
  const stagingDir = staging.path
  // One directory fsync covers every rename into that shard before it began (grouped-sync.ts).
  const shardSyncs = new Map<string, () => Promise<void>>()
  const syncShard = (shard: string) => {
    let sync = shardSyncs.get(shard)
    if (!sync) {
      sync = groupedSync(() => syncDirectory(shard))
      shardSyncs.set(shard, sync)
    }
    return sync()
  }
  const pathOf = (key: string) => {
    assertValidBlobKey(key)
    return join(root, key.slice(0, 2), key)
  }

  return {
    kind: 'local',

    async stage(body): Promise<StagedBlob> {
      const tempPath = join(stagingDir, crypto.randomUUID())
      let size: number
      try {
        size = await writeDurably(tempPath, body)
      } catch (error) {
        await rm(tempPath, { force: true })
        throw diskFullOr(error)
      }
      return {
        size,
        async commit(key) {
          const target = pathOf(key)
          const shard = join(root, key.slice(0, 2))
          // Same content under the same key: replacing it is harmless, and rename is atomic.
          await rename(tempPath, target).catch(async (error: unknown) => {
            // The shard's first blob (or a restore replaced the tree): make its directory, then try again.
            if (errorCode(error) !== 'ENOENT') throw error
            await mkdir(shard, { recursive: true })
            await rename(tempPath, target)
          })
          await syncShard(shard)
        },
        discard: () => rm(tempPath, { force: true }),
      }
    },

    get: createFsBlobReader(root).get,

    async stat(key) {
      const info = await statOrNull(pathOf(key))
      return info ? { size: info.size } : null
    },

    async delete(key) {
      await rm(pathOf(key), { force: true })
    },

    async *list() {
      for (const shard of await readdir(root, { withFileTypes: true })) {
        if (!shard.isDirectory() || shard.name === stagingDirName) continue
        for (const entry of await readdir(join(root, shard.name), { withFileTypes: true })) {
          if (!entry.isFile()) continue
          const info = await statOrNull(join(root, shard.name, entry.name))
          if (info) yield { key: entry.name, size: info.size, modifiedAt: info.mtime }
        }
      }
    },

    removeLeftovers: () => staging.sweep(),

    async checkHealth(): Promise<ComponentHealth> {
      const probe = join(stagingDir, `.health-${crypto.randomUUID()}`)
      try {
        const handle = await open(probe, 'w')
        await handle.close()
        await unlink(probe)
      } catch (error) {
        return {
          status: 'fail',
          reason: `storage directory is not writable (${errorCode(error)})`,
          details: { kind: 'local' },
        }
      }
      const disk = await statfs(root)
      const freeBytes = disk.bavail * disk.bsize
      return freeBytes < lowDiskBytes
        ? {
            status: 'warn',
            reason: 'less than 1 GiB of disk space left',
            details: { kind: 'local', free_bytes: freeBytes },
          }
        : { status: 'pass', details: { kind: 'local', free_bytes: freeBytes } }
    },
  }
}

/**
 * Writes `body` to a new file at `path` and flushes it to disk: its bytes, written one chunk
 * behind the read (the next chunk is produced, a restore's from gunzip, while the last is
 * written), and its size. Plain file-handle calls rather than a Node stream: a library's small
 * files are staged by the thousand, and adapting each web stream to a Node one cost more than
 * writing it.
 */
async function writeDurably(path: string, body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = body.getReader()
  const file = await open(path, 'w').catch(async (error: unknown) => {
    await reader.cancel(error).catch(() => {})
    throw error
  })
  let size = 0
  let writing: Promise<void> = Promise.resolve()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      await writing
      if (done) break
      size += value.byteLength
      writing = writeAll(file, value)
      // A failed write is seen at the next `await writing`; until then it must not count as unobserved.
      writing.catch(() => {})
    }
    await file.sync()
  } catch (error) {
    await reader.cancel(error).catch(() => {})
    throw error
  } finally {
    await file.close()
  }
  return size
}

/** `write` may write less than it is given; the rest goes in further calls. */
async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength; ) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.byteLength - offset)
    offset += bytesWritten
  }
}

async function statOrNull(path: string) {
  try {
    return await stat(path)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    throw error
  }
}

/** Makes a rename durable: without it a power cut can forget the new directory entry. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** A full disk or quota as the domain's 507; any other error as it is. */
export function diskFullOr(error: unknown): unknown {
  const code = errorCode(error)
  return code === 'ENOSPC' || code === 'EDQUOT'
    ? new VaultError('insufficient_storage', `The disk is full (${code}); nothing was stored.`)
    : error
}

export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? 'unknown error'
}
