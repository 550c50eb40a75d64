import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFsBlobStore } from '../src/adapters/fs/fs-blob-store.js'
import { claimProcessDir } from '../src/adapters/fs/process-dir.js'
import { createNodeProcessLiveness } from '../src/adapters/node/process-liveness.js'
import { archiveFileName } from '../src/core/backup/manifest.js'
import { putContentAddressed, streamOf } from '../src/core/blobs/put-content-addressed.js'
import { scheduleGarbageCollection } from '../src/core/maintenance/collect-garbage.js'
import { acquireLock } from '../src/core/runtime/db-lock.js'
import { maintenanceLockName } from '../src/core/runtime/maintenance-lock.js'
import { admin, adminEnv, call, expectProblem, signIn } from './support/accounts.js'
import { cliArgs, setUpBuiltCli } from './support/built-cli.js'
import { type S3TestServer, startS3Server } from './support/s3-server.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

setUpBuiltCli()

/** Bytes stored the way an upload killed before registering them leaves them: complete, hash-named, no row. */
async function orphan(vault: TestVault, store: 'blobs' | 'thumbnails' = 'blobs', size = 5000) {
  const deps = vault.deps
  const stored = await putContentAddressed(deps[store], deps.createSha256, streamOf(randomBytes(size)))
  return stored.sha256
}

const gc = (vault: TestVault, token: string, query = '') =>
  call(vault.baseUrl, 'POST', `/api/v1/maintenance/gc${query}`, { token })

const present = async (vault: TestVault, key: string, store: 'blobs' | 'thumbnails' = 'blobs') =>
  (await vault.deps[store].stat(key)) !== null

/** Every file row's blob and thumbnail is still stored: the invariant no sweep may break. */
async function expectNoDanglingRows(vault: TestVault) {
  const rows = await vault.deps.database.db.selectFrom('files').select(['sha256', 'thumbnail_sha256']).execute()
  for (const row of rows) {
    expect(await present(vault, row.sha256), row.sha256).toBe(true)
    if (row.thumbnail_sha256) expect(await present(vault, row.thumbnail_sha256, 'thumbnails')).toBe(true)
  }
}

describe.each([
  { storage: 'a local directory', s3: false },
  { storage: 'an S3 bucket', s3: true },
])('garbage collection with blobs in $storage', ({ s3 }) => {
  let server: S3TestServer | undefined
  let storageEnv: Record<string, string> = {}
  /** Grace 0: every unreferenced blob is old enough to go. */
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    if (s3) {
      server = await startS3Server()
      storageEnv = {
        VAULT_STORAGE: 's3',
        VAULT_S3_ENDPOINT: server.endpoint,
        VAULT_S3_BUCKET: await server.createBucket(),
        VAULT_S3_ACCESS_KEY_ID: server.accessKeyId,
        VAULT_S3_SECRET_ACCESS_KEY: server.secretAccessKey,
        VAULT_S3_FORCE_PATH_STYLE: 'true',
      }
    }
    vault = await startTestVault({ ...adminEnv, ...storageEnv, VAULT_GC_GRACE_MINUTES: '0' })
    token = (await signIn(vault.baseUrl, admin)).access_token
  }, 30_000)
  afterAll(async () => {
    await vault?.close()
    await server?.stop()
  })

  test('a dry run counts orphans and deletes nothing; the sweep then deletes them and keeps every referenced blob', async () => {
    const kept = await upload(vault.baseUrl, token, 'kept.stl', binaryCube(20, 1))
    expect(kept.status).toBe(201)
    // Its thumbnail rendered and recorded: with no grace period, one written in the sweep's moment would count as an orphan.
    await vault.deps.analysis.idle()
    const [blob, thumbnail] = [await orphan(vault, 'blobs', 7000), await orphan(vault, 'thumbnails', 300)]

    const dry = await gc(vault, token, '?dry_run=true')
    expect(dry.status).toBe(200)
    expect(dry.body).toMatchObject({
      dry_run: true,
      completed: true,
      blobs: { removed: 1, removed_bytes: 7000 },
      thumbnails: { removed: 1, removed_bytes: 300 },
    })
    expect(await present(vault, blob)).toBe(true)
    expect(await present(vault, thumbnail, 'thumbnails')).toBe(true)

    const swept = await gc(vault, token)
    expect(swept.status).toBe(200)
    expect(swept.body).toMatchObject({
      dry_run: false,
      completed: true,
      blobs: { removed: 1, removed_bytes: 7000, kept_young: 0, kept_for_safety_copy: 0 },
      thumbnails: { removed: 1, removed_bytes: 300 },
    })
    expect(await present(vault, blob)).toBe(false)
    expect(await present(vault, thumbnail, 'thumbnails')).toBe(false)
    expect(await present(vault, kept.body.file.sha256)).toBe(true)
    if (kept.body.file.thumbnail_sha256)
      expect(await present(vault, kept.body.file.thumbnail_sha256, 'thumbnails')).toBe(true)
    const download = await fetch(`${vault.baseUrl}/api/v1/files/${kept.body.file.id}/content`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(binaryCube(20, 1))
    expect(vault.logs).toContainEqual(
      expect.objectContaining({ msg: 'garbage collected', blobs_removed: 1, blobs_removed_bytes: 7000 }),
    )
    await expectNoDanglingRows(vault)
  })

  test('blobs younger than the grace period are kept', async () => {
    const patient = await startTestVault({ ...storageEnv, VAULT_GC_GRACE_MINUTES: '60' }, { shareWith: vault })
    try {
      const young = await orphan(vault)
      const swept = await gc(patient, token)
      expect(swept.status).toBe(200)
      expect(swept.body.blobs).toMatchObject({ removed: 0, kept_young: 1 })
      expect(await present(vault, young)).toBe(true)
    } finally {
      await patient.close()
    }
    await gc(vault, token)
  })

  test('nothing is collected while a backup or restore holds the maintenance lock', async () => {
    const blob = await orphan(vault)
    const lock = await acquireLock(vault.deps.database.db, vault.deps.clock, maintenanceLockName, 'backup')
    if (!('held' in lock)) throw new Error('the maintenance lock was taken')
    try {
      expectProblem(await gc(vault, token), 409, 'maintenance_in_progress')
      expect(await present(vault, blob)).toBe(true)
    } finally {
      await lock.held.release()
    }
    expect((await gc(vault, token)).body.blobs.removed).toBe(1)
    expect(await present(vault, blob)).toBe(false)
  })

  test("blobs stored before a restore are kept while the restore's safety copy is", async () => {
    const before = await orphan(vault)
    // A safety copy made a minute from now: every blob so far is older than it.
    const name = archiveFileName(crypto.randomUUID(), new Date(Date.now() + 60_000), 'pre-restore')
    await writeFile(join(vault.dataDir, 'backups', name), 'a safety copy (the sweep reads its name only)')
    try {
      const swept = await gc(vault, token)
      expect(swept.body.blobs).toMatchObject({ removed: 0, kept_for_safety_copy: 1, kept_for_safety_copy_bytes: 5000 })
      expect(await present(vault, before)).toBe(true)
    } finally {
      await vault.deps.backups.local.delete(name)
    }
    expect((await gc(vault, token)).body.blobs.removed).toBe(1)
  })

  test('uploads racing repeated sweeps all land whole: the grace period covers them', async () => {
    // The default grace period (60 minutes), on another instance of the same install.
    const sweeper = await startTestVault({ ...storageEnv }, { shareWith: vault })
    try {
      const uploads = Array.from({ length: 8 }, (_, i) =>
        upload(vault.baseUrl, token, `race-${i}.stl`, binaryCube(10 + i, i)),
      )
      const sweeps = Array.from({ length: 4 }, () => gc(sweeper, token))
      const [uploaded, swept] = await Promise.all([Promise.all(uploads), Promise.all(sweeps)])
      for (const sweep of swept) expect(sweep.status).toBe(200)
      for (const [i, reply] of uploaded.entries()) {
        expect(reply.status).toBe(201)
        const download = await fetch(`${vault.baseUrl}/api/v1/files/${reply.body.file.id}/content`, {
          headers: { Authorization: `Bearer ${token}` },
        })
        expect(new Uint8Array(await download.arrayBuffer())).toEqual(binaryCube(10 + i, i))
      }
    } finally {
      await sweeper.close()
    }
    await expectNoDanglingRows(vault)
  }, 30_000)

  test('the sweep is for superusers only', async () => {
    const anonymous = await call(vault.baseUrl, 'POST', '/api/v1/maintenance/gc')
    expect(anonymous.status).toBe(401)
  })
})

describe('garbage collection, scheduled and from the shell', () => {
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    vault = await startTestVault({ ...adminEnv, VAULT_GC_GRACE_MINUTES: '0' })
    token = (await signIn(vault.baseUrl, admin)).access_token
  })
  afterAll(() => vault?.close())

  test('the scheduled job sweeps orphans on its own', async () => {
    const blob = await orphan(vault)
    const schedule = scheduleGarbageCollection(vault.deps, { intervalMs: 50, graceMs: 0 })
    try {
      await expect.poll(() => present(vault, blob), { timeout: 10_000 }).toBe(false)
    } finally {
      schedule.stop()
    }
  })

  test('`model-vault blobs gc --dry-run` counts, `blobs gc` deletes, and both print what they found', async () => {
    const kept = await upload(vault.baseUrl, token, 'cli-kept.stl', binaryCube(30))
    const blob = await orphan(vault, 'blobs', 2 * 1024 * 1024)
    const dry = await cli(vault, ['blobs', 'gc', '--dry-run'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('Blobs: 1 unreferenced would be removed (2.0 MiB)')
    expect(await present(vault, blob)).toBe(true)

    const run = await cli(vault, ['blobs', 'gc'])
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain('Blobs: 1 unreferenced removed (2.0 MiB)')
    expect(run.stdout).toContain('Staged uploads of stopped processes removed: 0')
    expect(await present(vault, blob)).toBe(false)
    expect(await present(vault, kept.body.file.sha256)).toBe(true)
  }, 60_000)
})

describe('leftovers of stopped processes at start-up', () => {
  test("a dead process's staged upload and database snapshot are removed at start-up; a live writer's staged bytes are not", async () => {
    const vault = await startTestVault(adminEnv)
    const deadPid = await exitedPid()
    const { hostId } = createNodeProcessLiveness()
    const leftovers = [join(vault.dataDir, 'blobs', '.staging'), join(vault.dataDir, 'backups', '.scratch')]
    const deadId = crypto.randomUUID()
    for (const parent of leftovers) {
      await mkdir(join(parent, deadId), { recursive: true })
      await writeFile(join(parent, deadId, 'owner.json'), JSON.stringify({ machine: hostId, pid: deadPid, id: deadId }))
      await writeFile(join(parent, deadId, 'snapshot-or-upload'), randomBytes(64 * 1024))
    }
    const [liveStaging, liveScratch] = await Promise.all(
      leftovers.map(async (parent) => (await readdir(parent)).find((name) => name !== deadId)!),
    )

    // A write into the vault's own blob store, half done and paused while another process starts.
    const bytes = randomBytes(1024 * 1024)
    let resume: () => void = () => {}
    const paused = new Promise<void>((resolve) => (resume = resolve))
    const staging = vault.deps.blobs.stage(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(bytes.subarray(0, 512 * 1024))
          await paused
          controller.enqueue(bytes.subarray(512 * 1024))
          controller.close()
        },
      }),
    )
    // Staging holds the upload's first bytes beside the owner file.
    await expect.poll(async () => (await readdir(join(leftovers[0]!, liveStaging!))).length).toBe(2)

    // Another process's start-up, on the same volume: its blob store and scratch directory.
    const removed: Record<string, unknown>[] = []
    await createFsBlobStore(join(vault.dataDir, 'blobs'), (leftover) => removed.push({ place: 'staging', ...leftover }))
    await claimProcessDir(leftovers[1]!, (leftover) => removed.push({ place: 'scratch', ...leftover }))
    const [stagingAfter, scratchAfter] = await Promise.all(leftovers.map((parent) => readdir(parent)))
    // The dead owner's directories are gone; the first instance's are still there, and the newcomer's are new.
    expect(stagingAfter).not.toContain(deadId)
    expect(stagingAfter).toContain(liveStaging)
    expect(stagingAfter).toHaveLength(2)
    expect(scratchAfter).not.toContain(deadId)
    expect(scratchAfter).toContain(liveScratch)
    expect(await readdir(join(leftovers[0]!, liveStaging!))).toHaveLength(2)
    expect(removed).toEqual([
      { place: 'staging', files: 1, bytes: 64 * 1024 },
      { place: 'scratch', files: 1, bytes: 64 * 1024 },
    ])
    try {
      resume()
      const staged = await staging
      const key = createHash('sha256').update(bytes).digest('hex')
      await staged.commit(key)
      const body = await vault.deps.blobs.get(key)
      expect(new Uint8Array(await new Response(body!.stream).arrayBuffer())).toEqual(new Uint8Array(bytes))
    } finally {
      resume()
      await vault.close()
    }
  }, 30_000)
})

/** The pid of a process that has exited: nothing runs under it now. */
function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  return new Promise((resolve) => child.on('exit', () => resolve(child.pid!)))
}

function cli(vault: TestVault, args: string[]) {
  const child = spawn(process.execPath, cliArgs(...args), {
    env: {
      PATH: process.env.PATH,
      VAULT_DATA_DIR: vault.dataDir,
      VAULT_DATABASE_URL: vault.databaseUrl,
      VAULT_GC_GRACE_MINUTES: '0',
    },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  )
}
