import { createHash } from 'node:crypto'
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createS3Client } from '../src/adapters/s3/s3-client.js'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { listObjectKeys, type S3TestServer, startS3Server } from './support/s3-server.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let s3: S3TestServer
beforeAll(async () => {
  s3 = await startS3Server()
})
afterAll(async () => s3.stop())

const backupBucketEnv = (bucket: string) => ({
  ...adminEnv,
  VAULT_BACKUP_S3_ENDPOINT: s3.endpoint,
  VAULT_BACKUP_S3_BUCKET: bucket,
  VAULT_BACKUP_S3_PREFIX: 'nightly',
  VAULT_BACKUP_S3_ACCESS_KEY_ID: s3.accessKeyId,
  VAULT_BACKUP_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  VAULT_BACKUP_S3_FORCE_PATH_STYLE: 'true',
})

async function withVault(env: Record<string, string>, use: (vault: TestVault, token: string) => Promise<void>) {
  const vault = await startTestVault(env)
  try {
    const token = (await signIn(vault.baseUrl, admin)).access_token
    await upload(vault.baseUrl, token, 'cube.stl', binaryCube(18))
    await use(vault, token)
  } finally {
    await vault.close()
  }
}

describe('the S3 copy of each backup', () => {
  it('uploads the same archive to the backup bucket and checks it', async () => {
    const bucket = await s3.createBucket()
    await withVault(backupBucketEnv(bucket), async (_vault, token) => {
      const backup = await backUp(_vault.baseUrl, token)
      expect(backup.status).toBe('complete')
      expect(backup.locations).toEqual([
        { kind: 'local', status: 'stored', error: null },
        { kind: 's3', status: 'uploaded', error: null },
      ])
      const list = await call(_vault.baseUrl, 'GET', '/api/v1/backups', { token })
      expect(list.body.destination.bucket).toBe(`s3://${bucket}/nightly/`)
      const client = createS3Client(s3.configFor(bucket))
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `nightly/${backup.file_name}` }))
      const bytes = await object.Body!.transformToByteArray()
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(backup.sha256)
      const health = await call(_vault.baseUrl, 'GET', '/api/v1/health')
      expect(health.body.components.backup).toMatchObject({
        status: 'pass',
        details: { bucket_reachable: true, last_backup_copy: 'uploaded' },
      })
    })
  })

  it('keeps the local backup when the bucket is unreachable, and says so on the record and in health', async () => {
    await withVault(backupBucketEnv('no-such-backup-bucket'), async (vault, token) => {
      const backup = await backUp(vault.baseUrl, token)
      expect(backup.status).toBe('complete')
      expect(backup.locations[0]).toEqual({ kind: 'local', status: 'stored', error: null })
      expect(backup.locations[1]).toMatchObject({ kind: 's3', status: 'failed' })
      expect(backup.locations[1].error).toMatch(/NoSuchBucket/)
      const health = await call(vault.baseUrl, 'GET', '/api/v1/health')
      expect(health.status).toBe(200)
      expect(health.body.components.backup.status).toBe('fail')
      expect(health.body.components.backup.reason).toContain('the last backup could not be copied to the backup bucket')
    })
  })

  it('prunes old archives in the bucket too, leaving other objects alone', async () => {
    const bucket = await s3.createBucket()
    const client = createS3Client(s3.configFor(bucket))
    const stamp = new Date(Date.now() - 40 * 86_400_000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z')
      .replaceAll(':', '-')
    const old = `nightly/model-vault-${stamp}-${crypto.randomUUID()}.tar.gz`
    for (const key of [old, 'nightly/readme.txt', 'elsewhere/model-vault-old.tar.gz']) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }))
    }
    await withVault(backupBucketEnv(bucket), async (vault, token) => {
      const backup = await backUp(vault.baseUrl, token)
      const keys = await listObjectKeys(client, bucket, '')
      expect(keys).not.toContain(old)
      expect(keys).toEqual(
        expect.arrayContaining([
          'nightly/readme.txt',
          'elsewhere/model-vault-old.tar.gz',
          `nightly/${backup.file_name}`,
        ]),
      )
    })
  })
})
