import type { BackupSink } from '../../core/backup/backup-sink.js'
import type { S3Config } from '../../core/config/config.js'
import { createS3Client, probeBucket } from './s3-client.js'

/**
 * The optional S3-compatible backup bucket (`VAULT_BACKUP_S3_*`). Healthy while the bucket
 * answers HeadBucket within a few seconds; a failure names the error kind only, never the
 * endpoint, bucket or credentials.
 */
export function createS3BackupSink(config: S3Config): BackupSink {
  const client = createS3Client(config)
  return {
    kind: 's3',
    async checkHealth() {
      const failure = await probeBucket(client, config.bucket)
      return failure
        ? { status: 'fail', reason: `backup bucket unreachable (${failure})`, details: { bucket_reachable: false } }
        : { status: 'pass', details: { bucket_reachable: true } }
    },
  }
}
