import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import tar from 'tar-stream'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { restoreBackup } from '../src/core/backup/restore-backup.js'
import type { BlobStore } from '../src/core/blobs/blob-store.js'
import { admin, adminEnv, call, expectProblem, newAccount, type Reply, signIn } from './support/accounts.js'
import { backUp, type DamageableManifest } from './support/backups.js'
import { filesUnder } from './support/leftovers.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

interface ArchiveEntry {
  name: string
  body: Buffer
  type?: 'file' | 'symlink'
  linkname?: string
}

/** The entries of a `.tar.gz`, in order, with their bytes. */
async function unpackArchive(archive: Buffer): Promise<ArchiveEntry[]> {
  const extract = tar.extract()
  const entries: ArchiveEntry[] = []
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      entries.push({ name: entry.header.name, body: Buffer.concat(chunks) })
    }
  })()
  extract.end(gunzipSync(archive))
  await reading
  return entries
}

/** A `.tar.gz` of `entries`, in the order given. */
async function packArchive(entries: ArchiveEntry[]): Promise<Buffer> {
  const pack = tar.pack()
  for (const entry of entries) {
    if (entry.type === 'symlink') pack.entry({ name: entry.name, type: 'symlink', linkname: entry.linkname! })
    else pack.entry({ name: entry.name, mode: 0o644 }, entry.body)
  }
  pack.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of pack) chunks.push(chunk as Buffer)
  return gzipSync(Buffer.concat(chunks))
}

const manifestOf = (entries: ArchiveEntry[]): DamageableManifest => JSON.parse(entries.at(-1)!.body.toString('utf8'))
const withManifest = (entries: ArchiveEntry[], manifest: unknown): ArchiveEntry[] => [
  ...entries.slice(0, -1),
  { name: 'manifest.json', body: Buffer.from(JSON.stringify(manifest)) },
]

/**
 * The real archive with `change` applied to its entries (the manifest stays last). With
 * `consistent`, the manifest's entry list is recomputed so the archive verifies and only
 * `editManifest`'s changes make it unusable.
 */
async function rework(
  archive: Buffer,
  change: (entries: ArchiveEntry[]) => ArchiveEntry[],
  options: { consistent?: boolean; editManifest?: (manifest: DamageableManifest) => void } = {},
): Promise<Buffer> {
  const entries = change(await unpackArchive(archive))
  const manifest = manifestOf(entries)
  if (options.consistent) {
    manifest.entries = entries
      .slice(0, -1)
      .map((entry) => ({ path: entry.name, size: entry.body.length, sha256: sha256(entry.body) }))
  }
  options.editManifest?.(manifest)
  return packArchive(withManifest(entries, manifest))
}

/** Every file under `dir`, relative and sorted, with its size; `.staging` folders left out. */
function listTree(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(dir, path).split('/').includes('.staging'))
    .map((path) => `${relative(dir, path)} ${statSync(path).size}`)
    .sort()
}

/** Everything a restore could change, as a user and an admin see it. */
async function fingerprint(vault: TestVault, token: string) {
  const get = async (path: string) => {
    const reply = await call(vault.baseUrl, 'GET', path, { token })
    expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).toBe(200)
    return reply.body
  }
  const models = await get('/api/v1/models?limit=200&sort=name')
  const details = []
  for (const item of models.items) details.push(await get(`/api/v1/models/${item.id}`))
  return {
    models,
    details,
    users: await get('/api/v1/admin/users'),
    backups: await get('/api/v1/backups'),
    blobs: listTree(join(vault.dataDir, 'blobs')),
    thumbs: listTree(join(vault.dataDir, 'thumbs')),
    safetyCopies: readdirSync(join(vault.dataDir, 'backups')).filter((name) => name.startsWith('pre-restore-')),
  }
}

/** Nothing half-done is left behind: no staged blob or thumbnail, no scratch database. */
function expectNoLeftovers(vault: TestVault) {
  expect(filesUnder(vault.dataDir, ['blobs/.staging']), 'staged blobs left behind').toEqual([])
  expect(filesUnder(vault.dataDir, ['thumbs/.staging']), 'staged thumbnails left behind').toEqual([])
  expect(filesUnder(vault.dataDir, ['backups/.scratch']), 'scratch database files left behind').toEqual([])
}

const databaseKind = inject('databaseKind')
const otherKind = databaseKind === 'sqlite' ? 'postgres' : 'sqlite'
const otherDatabaseEntry = otherKind === 'sqlite' ? 'db/vault.sqlite' : 'db/vault.pgdump'

describe('restores that are refused change nothing', () => {
  let vault: TestVault
  let token: string
  let catalogued: { id: string; file_name: string }
  let archive: Buffer
  let droppedBlob: string

  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    token = (await signIn(vault.baseUrl, admin)).access_token
    await upload(vault.baseUrl, token, 'kept.stl', binaryCube(12))
    const dropped = await upload(vault.baseUrl, token, 'dropped.stl', binaryCube(17))
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(201)
    // Rendered first, so nothing changes behind the comparisons of what a refusal leaves.
    await vault.deps.analysis.idle()
    await newAccount(vault.baseUrl, token)
    catalogued = await backUp(vault.baseUrl, token)
    expect(catalogued).toMatchObject({ status: 'complete' })
    archive = readFileSync(join(vault.dataDir, 'backups', catalogued.file_name))
    // The archive now holds a blob the store lost, so a restore has to stage it: a refusal must throw it away.
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${dropped.body.model.id}`, { token })).status).toBe(204)
    droppedBlob = (await unpackArchive(archive))
      .map((entry) => entry.name)
      .find(
        (name) =>
          name.startsWith('blobs/') && !existsSync(join(vault.dataDir, 'blobs', name.slice(6, 8), name.slice(6))),
      )!
    expect(droppedBlob, 'a blob of the archive that the store no longer has').toBeDefined()
  })
  afterAll(async () => vault?.close())

  /** Restores `bytes`, saved in the backup directory as an archive the catalogue does not know, and expects a refusal. */
  async function expectRefused(bytes: Buffer, code: 'invalid_archive' | 'incompatible_archive', detail: RegExp) {
    const id = crypto.randomUUID()
    const path = join(vault.dataDir, 'backups', `model-vault-2026-01-01T00-00-00Z-${id}.tar.gz`)
    writeFileSync(path, bytes)
    try {
      await expectRefusedRestore(id, code, detail)
    } finally {
      rmSync(path, { force: true })
    }
  }

  async function expectRefusedRestore(id: string, code: string, detail: RegExp, status = 422) {
    const before = await fingerprint(vault, token)
    const reply = await call(vault.baseUrl, 'POST', `/api/v1/backups/${id}/restore`, { token })
    expect(expectProblem(reply, status, code).detail).toMatch(detail)
    await expectUnchanged(before)
  }

  async function expectUnchanged(before: Awaited<ReturnType<typeof fingerprint>>) {
    // The caller's session survived (a restore that went through would have ended it).
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(200)
    expect(await fingerprint(vault, token)).toEqual(before)
    expectNoLeftovers(vault)
  }

  it('refuses an archive with a flipped byte in the middle of its gzip stream', async () => {
    const original = gunzipSync(archive)
    const changesContent = (bytes: Buffer) => {
      try {
        return !gunzipSync(bytes).equals(original)
      } catch {
        return true
      }
    }
    // A few bits are ignored by the inflater; take the first flip from the middle that is not one of them.
    let damaged = Buffer.from(archive)
    for (let at = Math.floor(archive.length / 2); ; at++) {
      damaged = Buffer.from(archive)
      damaged[at] = damaged[at]! ^ 0x5a
      if (changesContent(damaged)) break
    }
    await expectRefused(damaged, 'invalid_archive', /not usable/)
  })

  it('refuses a truncated archive', async () => {
    await expectRefused(archive.subarray(0, Math.floor(archive.length * 0.8)), 'invalid_archive', /not usable/)
  })

  it('refuses an archive missing a blob its manifest lists', async () => {
    const damaged = await rework(archive, (entries) => entries.filter((entry) => entry.name !== droppedBlob))
    await expectRefused(damaged, 'invalid_archive', /listed in the manifest but missing/)
  })

  it('refuses an archive whose database does not match its manifest line', async () => {
    const damaged = await rework(archive, (entries) => entries, {
      editManifest: (manifest) => {
        const line = manifest.entries.find((entry) => entry.path.startsWith('db/'))!
        line.sha256 = sha256('some other database')
        line.size += 1
      },
    })
    await expectRefused(damaged, 'invalid_archive', /does not match the manifest/)
  })

  it('refuses an archive whose blob bytes were changed, manifest and all', async () => {
    const damaged = await rework(
      archive,
      (entries) =>
        entries.map((entry) =>
          entry.name === droppedBlob ? { ...entry, body: Buffer.concat([entry.body, Buffer.from('tampered')]) } : entry,
        ),
      { consistent: true },
    )
    await expectRefused(damaged, 'invalid_archive', /does not match its hash/)
  })

  it.each(['../evil', 'blobs/../../evil', '/tmp/evil', `blobs/${'0'.repeat(64)}/../../../evil`])(
    'refuses an archive with an entry named %s, writing nowhere',
    async (name) => {
      // Placed after the database and the blobs, so they were staged before the bad name shows up.
      const damaged = await rework(
        archive,
        (entries) => [...entries.slice(0, -1), { name, body: Buffer.from('evil') }, entries.at(-1)!],
        {
          editManifest: (manifest) => manifest.entries.push({ path: name, size: 4, sha256: sha256('evil') }),
        },
      )
      await expectRefused(damaged, 'invalid_archive', /unexpected entry/)
      for (const dir of [
        vault.dataDir,
        join(vault.dataDir, '..'),
        join(vault.dataDir, 'backups', '..', '..'),
        '/tmp',
      ]) {
        expect(existsSync(join(dir, 'evil')), `an "evil" file in ${dir}`).toBe(false)
      }
    },
  )

  it('refuses an archive holding a symlink', async () => {
    const name = `blobs/${sha256('link')}`
    const damaged = await rework(archive, (entries) => [
      ...entries.slice(0, -1),
      { name, body: Buffer.alloc(0), type: 'symlink', linkname: '/etc/passwd' },
      entries.at(-1)!,
    ])
    await expectRefused(damaged, 'invalid_archive', /is a symlink, not a regular file/)
    expect(existsSync(join(vault.dataDir, 'blobs', name.slice(6, 8), name.slice(6)))).toBe(false)
  })

  it('refuses an archive from a newer schema version, although it is intact', async () => {
    const newer = await rework(archive, (entries) => entries, {
      consistent: true,
      editManifest: (manifest) => (manifest.schema_version = 999),
    })
    await expectRefused(newer, 'incompatible_archive', /schema version 999.*upgrade model-vault first/)
  })

  it('refuses an archive made by a newer model-vault, although it is intact', async () => {
    const newer = await rework(archive, (entries) => entries, {
      consistent: true,
      editManifest: (manifest) => (manifest.app_version = '99.0.0'),
    })
    await expectRefused(newer, 'incompatible_archive', /model-vault 99\.0\.0, newer than this 0\.0\.0-test/)
  })

  it(`refuses an archive of a ${otherKind} database`, async () => {
    const other = await rework(
      archive,
      (entries) =>
        entries.map((entry) => (entry.name.startsWith('db/') ? { ...entry, name: otherDatabaseEntry } : entry)),
      { consistent: true, editManifest: (manifest) => (manifest.database_kind = otherKind) },
    )
    await expectRefused(
      other,
      'incompatible_archive',
      new RegExp(`(${otherKind} database|${otherDatabaseEntry}).*this install uses ${databaseKind}`),
    )
    // The manifest alone claiming the other kind is enough.
    const claimed = await rework(archive, (entries) => entries, {
      consistent: true,
      editManifest: (manifest) => (manifest.database_kind = otherKind),
    })
    await expectRefused(
      claimed,
      'incompatible_archive',
      new RegExp(`${otherKind} database.*this install uses ${databaseKind}`),
    )
  })

  it('refuses a catalogued backup whose archive was changed after the backup was made', async () => {
    const path = join(vault.dataDir, 'backups', catalogued.file_name)
    try {
      // A byte of the gzip header's timestamp, which no checksum covers: the archive still
      // verifies entry by entry, only its recorded SHA-256 tells the change.
      const stamped = Buffer.from(archive)
      stamped[4] = stamped[4]! ^ 0x01
      expect(gunzipSync(stamped).equals(gunzipSync(archive))).toBe(true)
      writeFileSync(path, stamped)
      await expectRefusedRestore(catalogued.id, 'invalid_archive', /changed since the backup was made/)

      const flipped = Buffer.from(archive)
      const at = Math.floor(archive.length / 2)
      flipped[at] = flipped[at]! ^ 0xff
      writeFileSync(path, flipped)
      await expectRefusedRestore(catalogued.id, 'invalid_archive', /not usable/)
    } finally {
      writeFileSync(path, archive)
    }
  })

  it('answers 409 while a backup holds the maintenance lock, and leaves that lock alone', async () => {
    const { db } = vault.deps.database
    const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString()
    await db
      .insertInto('locks')
      .values({ name: 'backup-restore', owner: 'test', purpose: 'backup', expires_at: expiresAt })
      .execute()
    try {
      await expectRefusedRestore(catalogued.id, 'maintenance_in_progress', /backup is running/, 409)
      expect(await db.selectFrom('locks').selectAll().where('name', '=', 'backup-restore').execute()).toEqual([
        {
          name: 'backup-restore',
          owner: 'test',
          purpose: 'backup',
          expires_at: expiresAt,
          host_id: null,
          pid: null,
          instance_id: null,
          progress: null,
        },
      ])
    } finally {
      await db.deleteFrom('locks').where('owner', '=', 'test').execute()
    }
  })

  it('passes on a failure to stage a file that shows only after its bytes were read, and keeps nothing', async () => {
    // Files are flushed to disk while the next entries are read; a flush that fails (a disk error)
    // must still refuse the restore, with the store's own error, before anything is swapped in.
    const store = vault.deps.blobs
    const failingFlush: BlobStore = {
      ...store,
      async stage(body) {
        await (await store.stage(body)).discard()
        throw new Error('EIO: i/o error, fsync')
      },
    }
    const before = await fingerprint(vault, token)
    await expect(restoreBackup({ ...vault.deps, blobs: failingFlush }, catalogued.id, () => {})).rejects.toThrow(
      'EIO: i/o error, fsync',
    )
    await expectUnchanged(before)
  })

  it('refuses a caller without a token (401) and a user who is not an admin (403)', async () => {
    const before = await fingerprint(vault, token)
    expectProblem(await call(vault.baseUrl, 'POST', `/api/v1/backups/${catalogued.id}/restore`), 401, 'missing_token')
    const user = await newAccount(vault.baseUrl, token)
    const after = await fingerprint(vault, token)
    expectProblem(
      await call(vault.baseUrl, 'POST', `/api/v1/backups/${catalogued.id}/restore`, { token: user.token }),
      403,
      'insufficient_role',
    )
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { token: user.token })).status).toBe(200)
    await expectUnchanged(after)
    expect(after.users.items.length).toBe(before.users.items.length + 1)
  })

  it('still restores the untouched catalogued archive after all those refusals', async () => {
    const reply = await call(vault.baseUrl, 'POST', `/api/v1/backups/${catalogued.id}/restore`, { token })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.added).toMatchObject({ blobs: 1 })
    expectNoLeftovers(vault)
  })
})

describe('while a restore runs', () => {
  let vault: TestVault
  let token: string
  let backup: { id: string; file_name: string; size: number }
  let archiveSize: number

  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    token = (await signIn(vault.baseUrl, admin)).access_token
    // Random bytes do not compress: a large archive keeps the restore busy long enough to watch.
    for (let i = 0; i < 3; i++)
      expect((await upload(vault.baseUrl, token, `noise-${i}.bin`, randomBytes(8 * 1024 * 1024))).status).toBe(201)
    backup = await backUp(vault.baseUrl, token)
    expect(backup).toMatchObject({ status: 'complete' })
    archiveSize = statSync(join(vault.dataDir, 'backups', backup.file_name)).size
  })
  afterAll(async () => vault?.close())

  it('every other API request, health too, answers 503 with Retry-After and the progress, until it has finished', async () => {
    let settled = false
    const restoring = call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token }).finally(
      () => (settled = true),
    )
    const seen: Record<'models' | 'health' | 'backup', Reply | undefined> = {
      models: undefined,
      health: undefined,
      backup: undefined,
    }
    // What reads no data (the API document, the web UI and API reference pages) keeps answering.
    let documentWhileClosed: Reply | undefined
    for (let i = 0; i < 10_000 && !settled && !(seen.models && seen.health && seen.backup); i++) {
      // A backup is only asked for once the gate is seen closed: asked earlier, it could take the lock first.
      const [models, health, backupStart, document] = await Promise.all([
        call(vault.baseUrl, 'GET', '/api/v1/models', { token }),
        call(vault.baseUrl, 'GET', '/api/v1/health'),
        seen.models && !seen.backup ? call(vault.baseUrl, 'POST', '/api/v1/backups', { token }) : undefined,
        seen.models ? call(vault.baseUrl, 'GET', '/openapi.json') : undefined,
      ])
      if (models.status === 503 && document) documentWhileClosed ??= document
      if (models.status === 503) seen.models ??= models
      if (health.status === 503) seen.health ??= health
      if (backupStart?.status === 503) seen.backup ??= backupStart
    }
    const restored = await restoring
    expect(restored.status, JSON.stringify(restored.body)).toBe(200)
    expect(documentWhileClosed?.status).toBe(200)

    for (const [what, reply] of Object.entries(seen)) {
      expect(reply, `no 503 seen for ${what} while the restore ran`).toBeDefined()
      const body = expectProblem(reply!, 503, 'restore_in_progress')
      expect(Number(reply!.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(['verifying', 'safety_copy', 'swapping', 'finishing']).toContain(body.restore.phase)
      expect(body.restore.bytes_done).toBeGreaterThanOrEqual(0)
      expect(body.restore.bytes_done).toBeLessThanOrEqual(archiveSize)
      expect([null, archiveSize]).toContain(body.restore.bytes_total)
    }

    // Afterwards the service answers again: health at once, the API after signing in anew.
    expect((await call(vault.baseUrl, 'GET', '/api/v1/health')).status).toBe(200)
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/models', { token }), 401, 'invalid_token')
    const fresh = (await signIn(vault.baseUrl, admin)).access_token
    const models = await call(vault.baseUrl, 'GET', '/api/v1/models', { token: fresh })
    expect(models.status).toBe(200)
    expect(models.body.items).toHaveLength(3)
  })
})
