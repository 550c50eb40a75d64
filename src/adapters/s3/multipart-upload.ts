import { AbortMultipartUploadCommand, DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'

/** Bytes per multipart part; an upload holds about `partSize × (queueSize + 1)` in memory. */
const partSize = 8 * 1024 * 1024
const queueSize = 4

/**
 * Streams `body` to `key` with a multipart upload (lib-storage), in flat memory whatever the
 * length, and returns the number of bytes sent. The object appears only when the upload
 * completes. On failure the upload is aborted and any object removed, and the error that
 * broke it is rethrown (not a failed abort's).
 */
export async function uploadStream(
  client: S3Client,
  bucket: string,
  key: string,
  body: ReadableStream<Uint8Array>,
): Promise<number> {
  let size = 0
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  const cancelBody = new AbortController()
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body.pipeThrough(counter, { signal: cancelBody.signal }) },
    partSize,
    queueSize,
    // Aborted below instead: lib-storage would throw a failed abort's error in place of the
    // one that broke the upload (s3rver, for one, does not implement AbortMultipartUpload).
    leavePartsOnError: true,
  })
  try {
    await upload.done()
  } catch (error) {
    // When S3 failed first, stop reading the caller's body, as a failed pipeline would.
    cancelBody.abort()
    await Promise.allSettled([
      upload.uploadId &&
        client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.uploadId })),
      client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
    ])
    throw error
  }
  return size
}
