import { DeleteObjectCommand, GetObjectCommand, paginateListObjectsV2 } from '@aws-sdk/client-s3'
import type { BackupSink } from '../../core/backup/backup-sink.js'
import type { S3Config } from '../../core/config/config.js'
import { uploadStream } from './multipart-upload.js'
import { createS3Client, describeS3Error, nullWhenMissing, probeBucket } from './s3-client.js'

/** Failures name the error kind only; the SDK's error, with the endpoint, stays as `cause`. */
async function inBucket<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request()
  } catch (error) {
    throw new Error(`backup bucket: ${describeS3Error(error)}`, { cause: error })
  }
}

/**
 * The optional S3-compatible backup bucket (`VAULT_BACKUP_S3_*`): archives under
 * `<prefix><file name>`, written by multipart upload so they appear only when complete.
 * Health fails when the bucket does not answer HeadBucket within a few seconds. Failures,
 * there and on the backup records, name the error kind only, never the endpoint, bucket or
 * credentials.
 */
export function createS3BackupSink(config: S3Config): BackupSink {
  const client = createS3Client(config)
  const { bucket, prefix } = config
  return {
    kind: 's3',
    location: `s3://${bucket}/${prefix}`,
    write: (name, body) =>
      inBucket(async () => {
        await uploadStream(client, bucket, `${prefix}${name}`, body)
      }),
    read: (name) =>
      inBucket(async () => {
        const object = await nullWhenMissing(
          client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${name}` })),
        )
        return object?.Body ? (object.Body.transformToWebStream() as ReadableStream<Uint8Array>) : null
      }),
    list: () =>
      inBucket(async () => {
        const archives = []
        for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
          for (const object of page.Contents ?? []) {
            const name = object.Key?.slice(prefix.length)
            if (name === undefined || name.includes('/') || !object.LastModified) continue
            archives.push({ name, size: object.Size ?? 0, modifiedAt: object.LastModified })
          }
        }
        return archives
      }),
    delete: (name) =>
      inBucket(async () => {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${prefix}${name}` }))
      }),
    async checkHealth() {
      const failure = await probeBucket(client, bucket)
      return failure
        ? { status: 'fail', reason: `backup bucket unreachable (${failure})`, details: { bucket_reachable: false } }
        : { status: 'pass', details: { bucket_reachable: true } }
    },
  }
}
