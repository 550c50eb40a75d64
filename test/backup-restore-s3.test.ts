import { createHash } from 'node:crypto'
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { createS3Client } from '../src/adapters/s3/s3-client.js'
import {
  admin,
  adminEnv,
  call,
  createApiKeyAs,
  expectProblem,
  newAccount,
  newAccountWithKey,
  signIn,
} from './support/accounts.js'
import { backUp, waitForBackup } from './support/backups.js'
import { listObjectKeys, type S3TestServer, startS3Server } from './support/s3-server.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { asciiCube, binaryCube, sliceShape, upload } from './support/uploads.js'

let s3: S3TestServer
beforeAll(async () => {
  s3 = await startS3Server()
})
afterAll(async () => s3.stop())

/** `VAULT_S3_*` (the vault's own blobs and thumbnails) or `VAULT_BACKUP_S3_*` for a bucket on `server`. */
const bucketEnv = (prefix: 'VAULT_S3' | 'VAULT_BACKUP_S3', bucket: string, server = s3): Record<string, string> => ({
  ...(prefix === 'VAULT_S3' ? { VAULT_STORAGE: 's3' } : { VAULT_BACKUP_S3_PREFIX: 'nightly' }),
  [`${prefix}_ENDPOINT`]: server.endpoint,
  [`${prefix}_BUCKET`]: bucket,
  [`${prefix}_ACCESS_KEY_ID`]: server.accessKeyId,
  [`${prefix}_SECRET_ACCESS_KEY`]: server.secretAccessKey,
  [`${prefix}_FORCE_PATH_STYLE`]: 'true',
})

async function withVault(env: Record<string, string>, use: (vault: TestVault) => Promise<void>) {
  const vault = await startTestVault({ ...adminEnv, ...env })
  try {
    await use(vault)
  } finally {
    await vault.close()
  }
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
/** Where the vault's S3 storage keeps stored bytes or a thumbnail: `<store>/<first two chars>/<SHA-256>`. */
const objectKey = (sha256: string, store: 'blobs' | 'thumbs' = 'blobs') => `${store}/${sha256.slice(0, 2)}/${sha256}`

async function download(
  vault: TestVault,
  token: string,
  path: string,
): Promise<{ status: number; sha256: string | null }> {
  const res = await fetch(`${vault.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return { status: res.status, sha256: res.status === 200 ? sha256Of(bytes) : null }
}

/**
 * Everything a user can see of the library: every model (all pages) with its detail, every
 * file's bytes and thumbnail hashed. Fails the test if any listed model has no detail or any
 * file's bytes do not hash to the SHA-256 the vault recorded for it.
 */
async function libraryState(vault: TestVault, token: string) {
  const items: { id: string }[] = []
  for (let cursor: string | null = null; ; ) {
    const page = await call(
      vault.baseUrl,
      'GET',
      `/api/v1/models?limit=200&sort=name${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    )
    expect(page.status).toBe(200)
    items.push(...page.body.items)
    cursor = page.body.next_cursor
    if (!cursor) break
  }
  const models = []
  for (const item of items) {
    const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${item.id}`, { token })
    expect(detail.status, `model ${item.id} is listed but has no detail`).toBe(200)
    const files = []
    for (const file of detail.body.files) {
      const content = await download(vault, token, `/api/v1/files/${file.id}/content`)
      expect(content, `content of ${file.name}`).toEqual({ status: 200, sha256: file.sha256 })
      const thumbnail = await download(vault, token, `/api/v1/files/${file.id}/thumbnail`)
      files.push({ file, thumbnail: thumbnail.sha256 })
    }
    const thumbnail = await download(vault, token, `/api/v1/models/${item.id}/thumbnail`)
    models.push({ model: detail.body, thumbnail: thumbnail.sha256, files })
  }
  return models
}

const fileCount = (state: Awaited<ReturnType<typeof libraryState>>) =>
  state.reduce((total, model) => total + model.files.length, 0)

async function users(vault: TestVault, token: string) {
  const reply = await call(vault.baseUrl, 'GET', '/api/v1/admin/users', { token })
  expect(reply.status).toBe(200)
  return reply.body.items
}

async function backupCatalogue(vault: TestVault, token: string) {
  const reply = await call(vault.baseUrl, 'GET', '/api/v1/backups', { token })
  expect(reply.status).toBe(200)
  return reply.body.items
}

const localArchives = (vault: TestVault) =>
  readdirSync(join(vault.dataDir, 'backups')).filter((name) => name.endsWith('.tar.gz'))

describe('restoring with blobs, thumbnails and backups in S3 buckets', () => {
  it('puts back every model, file, thumbnail, user and API key of a vault whose storage is a bucket', async () => {
    const storage = await s3.createBucket()
    const backups = await s3.createBucket()
    const storageClient = createS3Client(s3.configFor(storage))
    onTestFinished(() => storageClient.destroy())
    await withVault({ ...bucketEnv('VAULT_S3', storage), ...bucketEnv('VAULT_BACKUP_S3', backups) }, async (vault) => {
      const rootToken = (await signIn(vault.baseUrl, admin)).access_token
      const box = sliceShape('box')
      expect((await upload(vault.baseUrl, rootToken, 'box.stl', box.stl)).status).toBe(201)
      expect((await upload(vault.baseUrl, rootToken, 'box.gcode', box.gcode)).status).toBe(201)
      const cube = (await upload(vault.baseUrl, rootToken, 'cube.stl', binaryCube(9))).body
      expect((await upload(vault.baseUrl, rootToken, 'ascii-cube.stl', asciiCube(13, 5))).status).toBe(201)
      // Rendered first: the state compared after the restore is the one the backup holds.
      await vault.deps.analysis.idle()
      const maker = await newAccountWithKey(vault.baseUrl, rootToken)
      const manager = await newAccount(vault.baseUrl, rootToken, 'admin')
      const before = await libraryState(vault, rootToken)
      const usersBefore = await users(vault, rootToken)
      expect(fileCount(before)).toBe(4)
      // The bytes and thumbnails really are in the storage bucket, and nowhere in the data directory.
      const stored = await listObjectKeys(storageClient, storage, '')
      const thumbnails = before.flatMap((model) =>
        model.files.flatMap((file) => (file.thumbnail ? [file.thumbnail] : [])),
      )
      expect(thumbnails.length).toBeGreaterThan(0)
      for (const thumbnail of thumbnails) expect(stored).toContain(objectKey(thumbnail, 'thumbs'))
      for (const { files } of before) for (const { file } of files) expect(stored).toContain(objectKey(file.sha256))
      expect(readdirSync(vault.dataDir)).not.toContain('blobs')
      expect(readdirSync(vault.dataDir)).not.toContain('thumbs')

      const backup = await backUp(vault.baseUrl, rootToken)
      expect(backup.status).toBe('complete')
      expect(backup.locations).toEqual([
        { kind: 'local', status: 'stored', error: null },
        { kind: 's3', status: 'uploaded', error: null },
      ])

      // After the backup: a model goes (its blob leaves the bucket), another comes, a key is revoked, a user disabled.
      expect(
        (await call(vault.baseUrl, 'DELETE', `/api/v1/models/${cube.model.id}`, { token: rootToken })).status,
      ).toBe(204)
      await expect
        .poll(async () => listObjectKeys(storageClient, storage, ''), { timeout: 5000 })
        .not.toContain(objectKey(cube.file.sha256))
      expect((await upload(vault.baseUrl, rootToken, 'late.stl', binaryCube(4))).status).toBe(201)
      await vault.deps.analysis.idle()
      expect(
        (await call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${maker.key.id}`, { token: maker.token })).status,
      ).toBe(200)
      const lateKey = await createApiKeyAs(vault.baseUrl, maker.token)
      expect(
        (
          await call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${manager.user.id}`, {
            token: rootToken,
            json: { disabled: true },
          })
        ).status,
      ).toBe(200)

      const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: rootToken })
      expect(restore.status, JSON.stringify(restore.body)).toBe(200)
      expect(restore.body.source).toEqual({
        location: 'local',
        file_name: backup.file_name,
        size: backup.size,
        sha256: backup.sha256,
      })
      expect(restore.body.manifest).toMatchObject({
        backup_id: backup.id,
        storage_kind: 's3',
        counts: { models: before.length, files: 4, users: usersBefore.length },
      })
      expect(restore.body.added.blobs).toBe(1) // the deleted cube's bytes; every other blob was still in the bucket
      expect(await listObjectKeys(storageClient, storage, '')).toContain(objectKey(cube.file.sha256))
      expect(restore.body.api_keys).toContainEqual(
        expect.objectContaining({
          id: maker.key.id,
          prefix: maker.key.prefix,
          username: maker.username,
          revoked_at: null,
        }),
      )
      expect(restore.body.api_keys.map((key: { id: string }) => key.id)).not.toContain(lateKey.id)

      const token = (await signIn(vault.baseUrl, admin)).access_token
      expect(await libraryState(vault, token)).toEqual(before)
      expect(await users(vault, token)).toEqual(usersBefore)
      expect((await signIn(vault.baseUrl, { username: maker.username, api_key: maker.key.key })).user.username).toBe(
        maker.username,
      )
      expect((await signIn(vault.baseUrl, { username: manager.username, password: manager.password })).user.role).toBe(
        'admin',
      )
      expect(
        (
          await call(vault.baseUrl, 'POST', '/api/v1/auth/login', {
            json: { username: maker.username, api_key: lateKey.key },
          })
        ).status,
      ).toBe(401)
    })
  })

  it('fetches the archive from the backup bucket when the backup directory no longer holds it', async () => {
    const backups = await s3.createBucket()
    await withVault(bucketEnv('VAULT_BACKUP_S3', backups), async (vault) => {
      const rootToken = (await signIn(vault.baseUrl, admin)).access_token
      const kept = (await upload(vault.baseUrl, rootToken, 'kept.stl', binaryCube(11))).body
      const doomed = (await upload(vault.baseUrl, rootToken, 'doomed.stl', asciiCube(17, 3))).body
      await vault.deps.analysis.idle()
      const maker = await newAccountWithKey(vault.baseUrl, rootToken)
      const before = await libraryState(vault, rootToken)
      const backup = await backUp(vault.baseUrl, rootToken)
      expect(backup.locations[1]).toEqual({ kind: 's3', status: 'uploaded', error: null })
      rmSync(join(vault.dataDir, 'backups', backup.file_name))

      expect(
        (await call(vault.baseUrl, 'DELETE', `/api/v1/models/${doomed.model.id}`, { token: rootToken })).status,
      ).toBe(204)
      expect(
        (await call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${maker.key.id}`, { token: maker.token })).status,
      ).toBe(200)
      expect(
        (await call(vault.baseUrl, 'GET', `/api/v1/files/${doomed.file.id}/content`, { token: rootToken })).status,
      ).toBe(404)

      const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: rootToken })
      expect(restore.status, JSON.stringify(restore.body)).toBe(200)
      expect(restore.body.source).toEqual({
        location: 's3',
        file_name: backup.file_name,
        size: backup.size,
        sha256: backup.sha256,
      })
      expect(restore.body.added.blobs).toBe(1)
      expect(restore.body.api_keys).toContainEqual(expect.objectContaining({ id: maker.key.id, revoked_at: null }))

      const token = (await signIn(vault.baseUrl, admin)).access_token
      expect(await libraryState(vault, token)).toEqual(before)
      expect(before.map((model) => model.model.id).sort()).toEqual([kept.model.id, doomed.model.id].sort())
      // The archive was read from the bucket, not brought back into the backup directory.
      expect(localArchives(vault).filter((name) => name.startsWith('model-vault-'))).toEqual([])
    })
  })

  // Both ways a bucket can fail: a server that is down, and a bucket that does not exist.
  const unreachable = [
    {
      name: 'the backup bucket server is down',
      setUp: async () => {
        const server = await startS3Server()
        const bucket = await server.createBucket()
        return { env: bucketEnv('VAULT_BACKUP_S3', bucket, server), copied: true, breakIt: () => server.stop() }
      },
    },
    {
      name: 'the backup bucket does not exist',
      setUp: async () => ({
        env: bucketEnv('VAULT_BACKUP_S3', `missing-${crypto.randomUUID()}`),
        copied: false,
        breakIt: async () => {},
      }),
    },
  ]
  for (const { name, setUp } of unreachable) {
    it(`answers 502 and changes nothing when the archive is not local and ${name}`, async () => {
      const { env, copied, breakIt } = await setUp()
      await withVault(env, async (vault) => {
        const token = (await signIn(vault.baseUrl, admin)).access_token
        const cube = (await upload(vault.baseUrl, token, 'cube.stl', binaryCube(12))).body
        await vault.deps.analysis.idle()
        const backup = await backUp(vault.baseUrl, token)
        expect(backup.status).toBe('complete')
        expect(backup.locations[1].status).toBe(copied ? 'uploaded' : 'failed')
        rmSync(join(vault.dataDir, 'backups', backup.file_name))
        await upload(vault.baseUrl, token, 'after.stl', binaryCube(5))
        await vault.deps.analysis.idle()
        await breakIt()
        const before = await libraryState(vault, token)
        const catalogue = await backupCatalogue(vault, token)

        const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })
        const problem = expectProblem(restore, 502, 'backup_location_unreachable')
        expect(problem.detail).toContain(backup.id)

        // The caller's session is still good, the data and catalogue are as they were, no safety copy was made.
        expect(await libraryState(vault, token)).toEqual(before)
        expect(before.map((model) => model.model.id)).toContain(cube.model.id)
        expect(await backupCatalogue(vault, token)).toEqual(catalogue)
        expect(localArchives(vault)).toEqual([])
        // Nothing is left holding the maintenance lock: a backup starts at once.
        expect((await backUp(vault.baseUrl, token)).locations[0]).toEqual({
          kind: 'local',
          status: 'stored',
          error: null,
        })
      })
    })
  }
})

describe('a backup taken while uploads run, once restored', () => {
  let run: Awaited<ReturnType<typeof backUpWhileUploading>>
  beforeAll(async () => {
    run = await backUpWhileUploading()
  })

  it('is a consistent library holding every upload that had finished when the backup started', () => {
    const restored = run.state.flatMap((model) => model.files.map(({ file }) => file.sha256))
    expect(restored).toEqual(expect.arrayContaining(run.finishedBeforeBackup))
    expect(run.finished).toEqual(expect.arrayContaining(restored))
    expect(restored).not.toContain(run.late)
    expect(run.state.every((model) => model.files.length > 0)).toBe(true)
    // Every file row belongs to a model the library lists (and libraryState checked every listed model's detail and bytes).
    expect(run.totals).toMatchObject({ models: run.state.length, files: restored.length })
  })

  it('matches the counts of models and files in its manifest', () => {
    expect({ models: run.totals.models, files: run.totals.files }).toEqual({
      models: run.counts.models,
      files: run.counts.files,
    })
  })
})

/**
 * Six workers upload distinct cubes one after another while a backup runs, so uploads finish
 * before its snapshot, while it streams the stores and while it writes its manifest; then
 * the backup is restored and the library read back.
 */
async function backUpWhileUploading() {
  const vault = await startTestVault(adminEnv)
  try {
    let token = (await signIn(vault.baseUrl, admin)).access_token
    // Distinct sizes: every cube is its own model (mesh matching ignores position, not size).
    const cube = (i: number) => binaryCube(6 + i * 0.37, i % 7)
    const finished: string[] = []
    let backupRunning = true
    let next = 0
    const worker = async () => {
      while (backupRunning && next < 120) {
        const i = next++
        const bytes = cube(i)
        const reply = await upload(vault.baseUrl, token, `busy-${i}.stl`, bytes)
        expect(reply.status, JSON.stringify(reply.body)).toBe(201)
        expect(reply.body.file.sha256).toBe(sha256Of(bytes))
        finished.push(reply.body.file.sha256)
      }
    }
    const uploading = Promise.all(Array.from({ length: 6 }, worker))
    uploading.catch(() => {}) // awaited below, once the backup has ended
    await vi.waitFor(() => expect(finished.length).toBeGreaterThanOrEqual(12), { interval: 1, timeout: 20_000 })
    const finishedBeforeBackup = [...finished]
    const started = await call(vault.baseUrl, 'POST', '/api/v1/backups', { token })
    expect(started.status, JSON.stringify(started.body)).toBe(202)
    const backup = await waitForBackup(vault.baseUrl, token, started.body.id)
    backupRunning = false
    await uploading
    expect(backup.status, backup.error).toBe('complete')
    const late = (await upload(vault.baseUrl, token, 'late.stl', cube(next))).body.file.sha256

    const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })
    expect(restore.status, JSON.stringify(restore.body)).toBe(200)
    token = (await signIn(vault.baseUrl, admin)).access_token
    const stats = await call(vault.baseUrl, 'GET', '/api/v1/models/stats', { token })
    return {
      finished,
      finishedBeforeBackup,
      late,
      state: await libraryState(vault, token),
      totals: stats.body.totals as { models: number; files: number },
      counts: restore.body.manifest.counts as { models: number; files: number },
    }
  } finally {
    await vault.close()
  }
}
