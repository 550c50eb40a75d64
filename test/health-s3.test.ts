import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type S3TestServer, startS3Server } from './support/s3-server.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

let s3: S3TestServer
let vault: TestVault | undefined
beforeAll(async () => {
  s3 = await startS3Server()
})
afterEach(async () => {
  await vault?.close()
  vault = undefined
})
afterAll(async () => s3.stop())

const s3Env = (prefix: 'VAULT_S3' | 'VAULT_BACKUP_S3', bucket: string) => ({
  ...(prefix === 'VAULT_S3' ? { VAULT_STORAGE: 's3' } : {}),
  [`${prefix}_ENDPOINT`]: s3.endpoint,
  [`${prefix}_BUCKET`]: bucket,
  [`${prefix}_ACCESS_KEY_ID`]: s3.accessKeyId,
  [`${prefix}_SECRET_ACCESS_KEY`]: s3.secretAccessKey,
  [`${prefix}_FORCE_PATH_STYLE`]: 'true',
})

const health = async () => {
  const res = await fetch(`${vault!.baseUrl}/api/v1/health`)
  return { status: res.status, body: await res.json() }
}

describe('health with S3-compatible storage and backup bucket', () => {
  it('reports all four components passing with blobs and backups in buckets', async () => {
    const storage = await s3.createBucket()
    const backups = await s3.createBucket()
    vault = await startTestVault({ ...s3Env('VAULT_S3', storage), ...s3Env('VAULT_BACKUP_S3', backups) })
    const { status, body } = await health()
    expect(status).toBe(200)
    expect(body.components.storage).toMatchObject({ status: 'pass', details: { kind: 's3' } })
    expect(body.components.backup).toMatchObject({ details: { directory_writable: true, bucket_reachable: true } })
    expect(body.components.backup.reason).toBe('no backup has been made yet')
  })

  it('answers 503 naming storage when the storage bucket is missing, without naming the endpoint or bucket', async () => {
    vault = await startTestVault(s3Env('VAULT_S3', 'no-such-bucket'))
    const { status, body } = await health()
    expect(status).toBe(503)
    expect(body.components.storage).toMatchObject({ status: 'fail' })
    expect(body.components.storage.reason).toContain('NoSuchBucket')
    const text = JSON.stringify(body)
    expect(text).not.toContain('no-such-bucket')
    expect(text).not.toContain(new URL(s3.endpoint).port)
    expect(text).not.toContain(s3.secretAccessKey)
  })

  it('keeps serving (200, warn) when only the backup bucket is unreachable, and says so', async () => {
    vault = await startTestVault({ ...s3Env('VAULT_BACKUP_S3', 'missing-backup-bucket') })
    const { status, body } = await health()
    expect(status).toBe(200)
    expect(body.status).toBe('warn')
    expect(body.components.backup).toMatchObject({
      status: 'fail',
      details: { directory_writable: true, bucket_reachable: false },
    })
    expect(body.components.backup.reason).toMatch(/^backup bucket unreachable \(/)
    expect(body.components.storage.status).toBe('pass')
  })
})
