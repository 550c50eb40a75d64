import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createS3Client } from '../src/adapters/s3/s3-client.js'
import { archiveFileName } from '../src/core/backup/manifest.js'
import { admin, adminEnv, authHeaders, call, expectProblem, signIn, uniqueName } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { startBuiltVault } from './support/built-vault.js'
import { listObjectKeys, type S3TestServer, startS3Server } from './support/s3-server.js'
import { startTestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'
import { startWorkersVault, type WorkersVault } from './support/workers-vault.js'

/**
 * Backups of the Workers build on the real workerd runtime (Miniflare 4, local D1 and R2) to a
 * real S3-protocol server on loopback (s3rver), the only place a Worker can keep an archive: the
 * backup, a restore from it that serves the data as it was, a damaged archive refused, and the
 * archive restored on Node (and a Node archive refused on Workers).
 */
let s3: S3TestServer
let client: S3Client
let bucket: string
let workers: WorkersVault
let baseUrl: string

beforeAll(async () => {
  s3 = await startS3Server()
  bucket = await s3.createBucket()
  client = createS3Client(s3.configFor(bucket))
  workers = await startWorkersVault({
    VAULT_BACKUP_S3_ENDPOINT: s3.endpoint,
    VAULT_BACKUP_S3_BUCKET: bucket,
    VAULT_BACKUP_S3_PREFIX: 'backups',
    VAULT_BACKUP_S3_ACCESS_KEY_ID: s3.accessKeyId,
    VAULT_BACKUP_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    VAULT_BACKUP_S3_FORCE_PATH_STYLE: 'true',
  })
  baseUrl = workers.baseUrl
}, 600_000)

afterAll(async () => {
  await workers?.miniflare.dispose()
  client?.destroy()
  await s3?.stop()
})

const archiveBytes = async (key: string) =>
  new Uint8Array(
    await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray(),
  )
const putArchive = (name: string, body: Uint8Array) =>
  client.send(new PutObjectCommand({ Bucket: bucket, Key: `backups/${name}`, Body: body }))
const modelNames = async (token: string) =>
  (await call(baseUrl, 'GET', '/api/v1/models?sort=name&limit=200', { token })).body.items.map(
    (model: { name: string }) => model.name,
  )

describe('backups of the Workers build to an S3-protocol bucket', () => {
  const kept = { name: uniqueName('Kept Bracket'), cube: binaryCube(13, 4) }
  let backup: { id: string; file_name: string }
  let keptFileId: string

  it('backs up the library into the bucket, bounded, and says so in health', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const stored = await upload(baseUrl, token, `${kept.name}.stl`, kept.cube)
    expect(stored.status, JSON.stringify(stored.body)).toBe(201)
    keptFileId = stored.body.file.id

    backup = await backUp(baseUrl, token)
    expect(backup, JSON.stringify(backup)).toMatchObject({ status: 'complete', error: null })
    const record = (await call(baseUrl, 'GET', `/api/v1/backups/${backup.id}`, { token })).body
    const paths = record.manifest.entries.map((entry: { path: string }) => entry.path)
    expect(paths).toContain('db/vault.sql')
    expect(paths).toContain(`blobs/${stored.body.file.sha256}`)
    expect(record.manifest.counts).toMatchObject({ users: 1, models: 1, files: 1 })
    expect(await listObjectKeys(client, bucket, 'backups/')).toEqual([`backups/${backup.file_name}`])

    const health = (await call(baseUrl, 'GET', '/api/v1/health')).body.components.backup
    expect(health).toMatchObject({
      status: 'pass',
      details: { bucket_reachable: true, max_backup_bytes: 32 * 1024 ** 2 },
    })
  })

  it('restores the backup from the bucket and serves the data as it was', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const later = await upload(baseUrl, token, `${uniqueName('Made Later')}.stl`, binaryCube(8, 8))
    expect(later.status).toBe(201)
    const models = (await call(baseUrl, 'GET', '/api/v1/models', { token })).body.items
    const keptModel = models.find((model: { name: string }) => model.name === kept.name)
    expect((await call(baseUrl, 'DELETE', `/api/v1/models/${keptModel.id}`, { token })).status).toBe(204)

    const restored = await call(baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })
    expect(restored.status, JSON.stringify(restored.body)).toBe(200)
    expect(restored.body).toMatchObject({ backup_id: backup.id, source: { location: 's3' } })
    expect(restored.body.safety_copy).toMatch(/^pre-restore-/)
    // Every session ended with the restore.
    expect((await call(baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(401)

    const { access_token: again } = await signIn(baseUrl, admin)
    expect(await modelNames(again)).toEqual([kept.name])
    const download = await fetch(`${baseUrl}/api/v1/files/${keptFileId}/content`, { headers: authHeaders(again) })
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(kept.cube)
    // The search index came back with the rows.
    const query = encodeURIComponent(kept.name.split('-')[1] ?? '')
    const found = await call(baseUrl, 'GET', `/api/v1/models?q=${query}`, { token: again })
    expect(found.body.items.map((model: { name: string }) => model.name)).toEqual([kept.name])
    expect((await call(baseUrl, 'GET', `/api/v1/backups/${backup.id}`, { token: again })).body.status).toBe('complete')
  })

  it('refuses a damaged archive and changes nothing', async () => {
    const { access_token: token } = await signIn(baseUrl, admin)
    const damaged = await archiveBytes(`backups/${backup.file_name}`)
    const at = Math.floor(damaged.length / 2)
    damaged[at] = (damaged[at] as number) ^ 0xff
    const id = crypto.randomUUID()
    await putArchive(archiveFileName(id, new Date()), damaged)
    const refused = await call(baseUrl, 'POST', `/api/v1/backups/${id}/restore`, { token })
    expectProblem(refused, 422, 'invalid_archive')
    expect((await call(baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(200)
    expect(await modelNames(token)).toEqual([kept.name])
  })

  it('restores the Workers archive on Node with SQLite (PostgreSQL refuses it), and refuses a Node archive on Workers', async () => {
    let dataDir = ''
    // The built service, as users run it: its version is the Workers build's, which a restore checks.
    const node = await startBuiltVault(adminEnv, async (_database, dir) => {
      dataDir = dir
      await mkdir(join(dir, 'backups'), { recursive: true })
      await writeFile(join(dir, 'backups', backup.file_name), await archiveBytes(`backups/${backup.file_name}`))
    })
    try {
      const nodeToken = (await signIn(node.baseUrl, admin)).access_token
      const onNode = await call(node.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: nodeToken })
      if (inject('databaseKind') === 'sqlite') {
        expect(onNode.status, JSON.stringify(onNode.body)).toBe(200)
        // The Workers build's PBKDF2 password hash signs in on Node too.
        const restoredToken = (await signIn(node.baseUrl, admin)).access_token
        const file = await fetch(`${node.baseUrl}/api/v1/files/${keptFileId}/content`, {
          headers: authHeaders(restoredToken),
        })
        expect(new Uint8Array(await file.arrayBuffer())).toEqual(kept.cube)
      } else {
        expectProblem(onNode, 422, 'incompatible_archive')
      }

      const nodeBackup = await backUp(node.baseUrl, (await signIn(node.baseUrl, admin)).access_token)
      await putArchive(nodeBackup.file_name, await readFile(join(dataDir, 'backups', nodeBackup.file_name)))
      const { access_token: token } = await signIn(baseUrl, admin)
      const refused = await call(baseUrl, 'POST', `/api/v1/backups/${nodeBackup.id}/restore`, { token })
      expectProblem(refused, 422, 'incompatible_archive')
      expect(await modelNames(token)).toEqual([kept.name])
    } finally {
      await node.close()
    }
  })
})

describe('the bound a runtime sets on backups and restores (Workers: VAULT_WORKERS_BACKUP_MAX_BYTES)', () => {
  it('answers 501 before starting a backup of more files, or reading a larger archive', async () => {
    const node = await startTestVault(adminEnv)
    try {
      const { access_token: token } = await signIn(node.baseUrl, admin)
      const stored = await upload(node.baseUrl, token, 'bound.stl', binaryCube(11, 2))
      const made = await backUp(node.baseUrl, token)
      node.deps.backups.limit = { bytes: stored.body.file.size - 1, reason: 'a bound for this test.' }
      const refused = await call(node.baseUrl, 'POST', '/api/v1/backups', { token })
      expectProblem(refused, 501, 'not_supported_on_this_runtime')
      expect(refused.body.detail).toMatch(/at most \d+ bytes of files.*a bound for this test/)
      const restore = await call(node.baseUrl, 'POST', `/api/v1/backups/${made.id}/restore`, { token })
      expectProblem(restore, 501, 'not_supported_on_this_runtime')
      // Nothing started: the catalogue holds the one backup, and the session still works.
      expect((await call(node.baseUrl, 'GET', '/api/v1/backups', { token })).body.items).toHaveLength(1)
    } finally {
      await node.close()
    }
  })
})
