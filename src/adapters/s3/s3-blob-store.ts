import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3'
import {
  assertValidBlobKey,
  type BlobStore,
  isValidBlobKey,
  type Leftovers,
  type StagedBlob,
} from '../../core/blobs/blob-store.js'
import type { ComponentHealth } from '../../core/health/component.js'
import { type Clock, systemClock } from '../../core/runtime/clock.js'
import { uploadStream } from './multipart-upload.js'
import { nullWhenMissing, probeBucket } from './s3-client.js'

const stagingDirName = '.staging'
/**
 * A staging object exists only between its multipart upload completing and `commit` copying
 * it (a HEAD or two in between), so one an hour old is a leftover; the hour covers clock skew.
 */
const staleStagingMs = 60 * 60_000

export interface S3BlobStoreOptions {
  client: S3Client
  bucket: string
  /** '' or ending in '/': the store's namespace inside the bucket. */
  prefix: string
  /** Against which staging objects' age is judged; the system clock unless a test moves time on. */
  clock?: Clock
}

/**
 * A blob store in an S3-compatible bucket: `<prefix><first two key chars>/<key>`.
 * `stage` streams a multipart upload of unknown length to `<prefix>.staging/<uuid>` with
 * flat memory; `commit` copies it under its key, unless an object is there already, and deletes
 * the staging object, so a blob is either absent or whole. A failed upload is aborted and its
 * staging object deleted before the original error is rethrown.
 *
 * Relies on S3's guarantee that writing an object replaces it atomically: a reader gets the old
 * object or the new one whole, never a mix. Two processes committing the same new key at the same
 * instant both find it missing and both copy (a conditional copy is not portable across
 * S3-compatible stores); with the same bytes either way, only a store that rewrites objects in
 * place can show a reader a partial blob then, and only in that race.
 *
 * Limits: CopyObject copies at most 5 GiB, so `commit` fails for larger blobs. Staging
 * objects left by a crash are removed by `removeLeftovers` once an hour old; multipart
 * uploads a crash left incomplete are not (a live one may run for hours): give the bucket a
 * lifecycle rule that aborts incomplete multipart uploads after a day. `stat` cannot tell a
 * missing bucket from a missing key (HEAD errors have no body); `get`, `commit` and
 * `checkHealth` can.
 */
export function createS3BlobStore({ client, bucket, prefix, clock = systemClock }: S3BlobStoreOptions): BlobStore {
  const objectKeyOf = (key: string) => {
    assertValidBlobKey(key)
    return `${prefix}${shardPath(key)}`
  }
  const deleteObject = async (key: string) => {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
  }

  return {
    kind: 's3',

    async stage(body): Promise<StagedBlob> {
      const stagingKey = `${prefix}${stagingDirName}/${crypto.randomUUID()}`
      const size = await uploadStream(client, bucket, stagingKey, body)
      return {
        size,
        async commit(key) {
          const objectKey = objectKeyOf(key)
          // A key already stored holds these very bytes: not copying over it spares a copy per duplicate,
          // and a reader of it on a store whose overwrite is not atomic (s3rver rewrites in place).
          const stored = await nullWhenMissing(client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey })))
          if (!stored) {
            // One CopyObject copies at most 5 GiB.
            await client.send(
              new CopyObjectCommand({ Bucket: bucket, Key: objectKey, CopySource: copySource(bucket, stagingKey) }),
            )
          }
          await deleteObject(stagingKey)
        },
        discard: () => deleteObject(stagingKey),
      }
    },

    async get(key, range) {
      const request = new GetObjectCommand({
        Bucket: bucket,
        Key: objectKeyOf(key),
        Range: range && `bytes=${range.start}-${range.end}`,
      })
      const object = await nullWhenMissing(client.send(request))
      // A GetObject answer without a body is an object we cannot read: treat it as missing.
      if (!object?.Body) return null
      return {
        stream: object.Body.transformToWebStream() as ReadableStream<Uint8Array>,
        // A ranged answer gives the whole size only in `Content-Range: bytes 0-99/1234`.
        size: Number(range ? object.ContentRange?.split('/')[1] : object.ContentLength),
      }
    },

    async stat(key) {
      const head = await nullWhenMissing(client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKeyOf(key) })))
      return head ? { size: Number(head.ContentLength) } : null
    },

    async delete(key) {
      await deleteObject(objectKeyOf(key))
    },

    async *list() {
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
        for (const object of page.Contents ?? []) {
          const path = object.Key?.slice(prefix.length) ?? ''
          const key = path.slice(path.lastIndexOf('/') + 1)
          // Only `<shard>/<key>` paths are blobs: this skips `.staging/` and anything foreign.
          if (isValidBlobKey(key) && path === shardPath(key)) {
            yield { key, size: Number(object.Size), modifiedAt: object.LastModified ?? clock.now() }
          }
        }
      }
    },

    async removeLeftovers() {
      const removed: Leftovers = { files: 0, bytes: 0 }
      const cutoff = clock.now().getTime() - staleStagingMs
      const stagingPrefix = `${prefix}${stagingDirName}/`
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: stagingPrefix })) {
        for (const object of page.Contents ?? []) {
          if (!object.Key || (object.LastModified?.getTime() ?? 0) >= cutoff) continue
          await deleteObject(object.Key)
          removed.files++
          removed.bytes += Number(object.Size ?? 0)
        }
      }
      return removed
    },

    async checkHealth(): Promise<ComponentHealth> {
      const failure = await probeBucket(client, bucket)
      return failure
        ? { status: 'fail', reason: `bucket unreachable (${failure})`, details: { kind: 's3' } }
        : { status: 'pass', details: { kind: 's3' } }
    },
  }
}

const shardPath = (key: string) => `${key.slice(0, 2)}/${key}`

/** `x-amz-copy-source` is `<bucket>/<key>`, URL-encoded. */
const copySource = (bucket: string, key: string) => [bucket, ...key.split('/')].map(encodeURIComponent).join('/')
