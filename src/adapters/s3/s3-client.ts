import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3'
import type { S3Config } from '../../core/config/config.js'

const probeTimeoutMs = 5000

/**
 * An S3 client for AWS or any S3-compatible service. Absent credentials fall back to the
 * SDK's default chain (environment, profile, instance role).
 *
 * Checksums are computed and validated only where S3 requires them: otherwise recent SDK
 * versions frame every upload as `aws-chunked` with a trailing checksum, which s3rver and
 * several non-AWS services reject or store verbatim, corrupting the object.
 */
export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    credentials: config.credentials,
    forcePathStyle: config.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
}

/**
 * Sends HeadBucket and gives up after a few seconds. Resolves to undefined when the bucket
 * answers, otherwise to a short name for the failure (`NoSuchBucket, HTTP 404`,
 * `ECONNREFUSED`, `timed out`) that never carries the endpoint, bucket name or credentials:
 * the SDK's error messages can contain the host, so they are not used.
 */
export async function probeBucket(client: S3Client, bucket: string): Promise<string | undefined> {
  const timeout = AbortSignal.timeout(probeTimeoutMs)
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: timeout })
    return undefined
  } catch (error) {
    if (timeout.aborted) return 'timed out'
    // HEAD responses carry no error body, so the SDK can only call a 404 `NotFound`.
    return (error as S3Failure).$metadata?.httpStatusCode === 404 ? 'NoSuchBucket, HTTP 404' : describeS3Error(error)
  }
}

interface S3Failure {
  name?: string
  code?: string
  $metadata?: { httpStatusCode?: number }
}

/**
 * An S3 failure as its kind and HTTP status only (`NoSuchBucket, HTTP 404`, `ECONNREFUSED`):
 * the SDK's own messages name the endpoint, and those go no further than the server log.
 */
export function describeS3Error(error: unknown): string {
  const { name, code, $metadata } = error as S3Failure
  const kind = code ?? name ?? 'unknown error'
  const status = $metadata?.httpStatusCode
  return status === undefined ? kind : `${kind}, HTTP ${status}`
}

/** The request's answer, or null when S3 says the key does not exist. */
export async function nullWhenMissing<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request
  } catch (error) {
    const name = (error as Error).name
    if (name === 'NoSuchKey' || name === 'NotFound') return null
    throw error
  }
}
