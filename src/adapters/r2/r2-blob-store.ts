import type { R2Bucket, R2UploadedPart } from '@cloudflare/workers-types'
import {
  assertValidBlobKey,
  type BlobStore,
  isValidBlobKey,
  type Leftovers,
  type StagedBlob,
} from '../../core/blobs/blob-store.js'
import { type Clock, systemClock } from '../../core/runtime/clock.js'
import { fixedSizeParts } from '../web/fixed-size-parts.js'

const stagingDirName = '.staging'
/** A staging object lives from its upload's end to `commit` (one copy): one an hour old is a leftover. */
const staleStagingMs = 60 * 60_000
/**
 * R2 multipart parts must all have one size (the last may be smaller), at least 5 MiB: bytes are
 * gathered into parts of this size, so an upload holds at most one part in memory.
 */
const partBytes = 8 * 1024 * 1024

export interface R2BlobStoreOptions {
  bucket: R2Bucket
  /** '' or ending in '/': the store's namespace inside the bucket (`blobs/`, `thumbs/`). */
  prefix: string
  clock?: Clock
}

/**
 * A blob store in an R2 bucket through the Workers binding: `<prefix><key>`. `stage` streams
 * the body to `<prefix>.staging/<uuid>`: a body that fits in one part is one `put`, a larger one
 * an R2 multipart upload of 8 MiB parts (memory stays at one part). `commit` copies the staging
 * object under its key (the binding has no server-side copy, so the bytes stream through the
 * Worker once more) and deletes it, so a blob is either absent or whole.
 *
 * Multipart uploads a killed Worker left incomplete are invisible to the binding: give the bucket
 * a lifecycle rule that aborts them after a day (README.md, "Cloudflare Workers").
 */
export function createR2BlobStore({ bucket, prefix, clock = systemClock }: R2BlobStoreOptions): BlobStore {
  const objectKeyOf = (key: string) => {
    assertValidBlobKey(key)
    return `${prefix}${key}`
  }
  return {
    kind: 'r2',

    async stage(body): Promise<StagedBlob> {
      const stagingKey = `${prefix}${stagingDirName}/${crypto.randomUUID()}`
      const size = await uploadInParts(bucket, stagingKey, body)
      return {
        size,
        async commit(key) {
          const staged = await bucket.get(stagingKey)
          if (!staged) throw new Error('the staged upload is gone from the bucket')
          // The body of a `get` has a known length, which `put` needs for a stream.
          await bucket.put(objectKeyOf(key), staged.body)
          await bucket.delete(stagingKey)
        },
        discard: () => bucket.delete(stagingKey),
      }
    },

    async get(key, range) {
      const object = await bucket.get(
        objectKeyOf(key),
        range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {},
      )
      if (!object) return null
      return { stream: object.body as unknown as ReadableStream<Uint8Array>, size: object.size }
    },

    async stat(key) {
      const head = await bucket.head(objectKeyOf(key))
      return head ? { size: head.size } : null
    },

    async delete(key) {
      await bucket.delete(objectKeyOf(key))
    },

    async *list() {
      let cursor: string | undefined
      do {
        // The delimiter keeps `.staging/` out of the listing.
        const page = await bucket.list({ prefix, delimiter: '/', ...(cursor ? { cursor } : {}) })
        for (const object of page.objects) {
          const key = object.key.slice(prefix.length)
          if (isValidBlobKey(key)) yield { key, size: object.size, modifiedAt: object.uploaded }
        }
        cursor = page.truncated ? page.cursor : undefined
      } while (cursor)
    },

    async removeLeftovers() {
      const removed: Leftovers = { files: 0, bytes: 0 }
      const cutoff = clock.now().getTime() - staleStagingMs
      let cursor: string | undefined
      do {
        const page = await bucket.list({ prefix: `${prefix}${stagingDirName}/`, ...(cursor ? { cursor } : {}) })
        for (const object of page.objects) {
          if (object.uploaded.getTime() >= cutoff) continue
          await bucket.delete(object.key)
          removed.files++
          removed.bytes += object.size
        }
        cursor = page.truncated ? page.cursor : undefined
      } while (cursor)
      return removed
    },

    async checkHealth() {
      try {
        await bucket.list({ prefix, limit: 1 })
        return { status: 'pass', details: { kind: 'r2' } }
      } catch {
        return { status: 'fail', reason: 'bucket unreachable', details: { kind: 'r2' } }
      }
    },
  }
}

/**
 * Writes `body` under `key` and returns its size: one `put` when it fits in one part, else a
 * multipart upload, aborted (and the error rethrown) when the stream fails.
 */
async function uploadInParts(bucket: R2Bucket, key: string, body: ReadableStream<Uint8Array>): Promise<number> {
  const parts = fixedSizeParts(body, partBytes)
  const first = await parts.next()
  const second = first.done ? first : await parts.next()
  if (second.done) {
    const bytes = first.done ? new Uint8Array(0) : first.value
    await bucket.put(key, bytes)
    return bytes.byteLength
  }
  const upload = await bucket.createMultipartUpload(key)
  try {
    const uploaded: R2UploadedPart[] = []
    let size = 0
    const send = async (bytes: Uint8Array) => {
      uploaded.push(await upload.uploadPart(uploaded.length + 1, bytes))
      size += bytes.byteLength
    }
    await send(first.value as Uint8Array)
    await send(second.value)
    for await (const bytes of parts) await send(bytes)
    await upload.complete(uploaded)
    return size
  } catch (error) {
    await upload.abort().catch(() => {})
    throw error
  }
}
