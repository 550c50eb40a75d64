import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { systemClock } from '../src/core/runtime/clock.js'
import { acquireLock } from '../src/core/runtime/db-lock.js'
import { admin, adminEnv, call, createUserAs, signIn } from './support/accounts.js'
import { backUp, unpack } from './support/backups.js'
import { createTestDatabase } from './support/test-database.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, sliceShape, upload } from './support/uploads.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  const sliced = sliceShape('box')
  await upload(vault.baseUrl, token, 'box.stl', sliced.stl)
  await upload(vault.baseUrl, token, 'box.gcode', sliced.gcode)
  await upload(vault.baseUrl, token, 'cube.stl', binaryCube(12))
  // Thumbnails are rendered in the background; the archives below should hold them.
  await vault.deps.analysis.idle()
})
afterAll(async () => vault.close())

const archivePath = (fileName: string) => join(vault.dataDir, 'backups', fileName)
const sha256File = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** The sha256 of every blob and thumbnail the database in an unpacked archive refers to. */
async function referencedContent(unpacked: string): Promise<string[]> {
  const query =
    'select sha256 as k from files union select thumbnail_sha256 from files where thumbnail_sha256 is not null'
  if (inject('databaseKind') === 'sqlite') {
    const db = new Database(join(unpacked, 'db', 'vault.sqlite'), { readonly: true })
    try {
      return (db.prepare(query).all() as { k: string }[]).map((r) => r.k).sort()
    } finally {
      db.close()
    }
  }
  const target = await createTestDatabase(unpacked)
  execFileSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, join(unpacked, 'db', 'vault.pgdump')])
  const client = new pg.Client({ connectionString: target.url })
  await client.connect()
  try {
    return (await client.query<{ k: string }>(query)).rows.map((r) => r.k).sort()
  } finally {
    await client.end()
    await target.drop()
  }
}

describe('creating a backup', () => {
  it('writes one tar.gz with the database, every blob and thumbnail, and a manifest that checks out', async () => {
    const backup = await backUp(vault.baseUrl, token)
    expect(backup).toMatchObject({
      status: 'complete',
      progress: 1,
      error: null,
      locations: [{ kind: 'local', status: 'stored', error: null }],
    })
    const path = archivePath(backup.file_name)
    expect(sha256File(path)).toBe(backup.sha256)
    expect(readFileSync(path).length).toBe(backup.size)
    expect(readdirSync(join(vault.dataDir, 'backups')).filter((n) => n.startsWith('.partial-'))).toEqual([])

    const unpacked = unpack(path)
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'))
    expect(manifest).toMatchObject({
      format: 'model-vault-backup',
      format_version: 1,
      backup_id: backup.id,
      app_version: '0.0.0-test',
      database_kind: inject('databaseKind'),
      storage_kind: 'local',
      counts: { users: 1, models: 2, files: 3 },
    })
    expect(manifest).toEqual(backup.manifest)
    for (const entry of manifest.entries) {
      expect(sha256File(join(unpacked, entry.path)), entry.path).toBe(entry.sha256)
      expect(readFileSync(join(unpacked, entry.path)).length, entry.path).toBe(entry.size)
    }
    const blobEntries = manifest.entries
      .filter((e: { path: string }) => e.path.startsWith('blobs/'))
      .map((e: { path: string }) => e.path.slice(6))
    const thumbEntries = manifest.entries
      .filter((e: { path: string }) => e.path.startsWith('thumbs/'))
      .map((e: { path: string }) => e.path.slice(7))
    expect(blobEntries.length).toBe(manifest.counts.blobs)
    const referenced = await referencedContent(unpacked)
    expect(referenced.length).toBeGreaterThanOrEqual(3)
    expect(thumbEntries.length).toBeGreaterThan(0)
    for (const key of referenced) expect([...blobEntries, ...thumbEntries]).toContain(key)
  })

  it('taken during concurrent uploads, holds every blob its database snapshot refers to', async () => {
    const started = await call(vault.baseUrl, 'POST', '/api/v1/backups', { token })
    expect(started.status).toBe(202)
    const uploads = await Promise.all(
      Array.from({ length: 8 }, (_, i) => upload(vault.baseUrl, token, `during-${i}.stl`, binaryCube(30 + i))),
    )
    expect(uploads.every((u) => u.status === 201)).toBe(true)
    const { waitForBackup } = await import('./support/backups.js')
    const backup = await waitForBackup(vault.baseUrl, token, started.body.id)
    expect(backup.status).toBe('complete')
    const unpacked = unpack(archivePath(backup.file_name))
    const present = new Set([...readdirSync(join(unpacked, 'blobs')), ...readdirSync(join(unpacked, 'thumbs'))])
    for (const key of await referencedContent(unpacked)) expect(present.has(key), key).toBe(true)
  })

  it('refuses a second backup while one runs, in any process (409), and needs the admin role', async () => {
    // A backup, not a restore, in the other process: a restore there closes every request with 503 (replicas.test.ts).
    const lock = await acquireLock(vault.deps.database.db, systemClock, 'backup-restore', 'backup')
    expect('held' in lock).toBe(true)
    try {
      const refused = await call(vault.baseUrl, 'POST', '/api/v1/backups', { token })
      expect(refused.status).toBe(409)
      expect(refused.body.code).toBe('maintenance_in_progress')
      expect(refused.body.detail).toMatch(
        /^A backup is running; try again when it has finished. \(If its process was stopped on another host, its lock lapses at /,
      )
    } finally {
      if ('held' in lock) await lock.held.release()
    }
    await createUserAs(vault.baseUrl, token, { username: 'plain-user', password: 'plain-user-password' })
    const userToken = (await signIn(vault.baseUrl, { username: 'plain-user', password: 'plain-user-password' }))
      .access_token
    for (const [method, path] of [
      ['POST', '/api/v1/backups'],
      ['GET', '/api/v1/backups'],
      ['GET', '/api/v1/backups/x'],
    ] as const) {
      expect((await call(vault.baseUrl, method, path, { token: userToken })).status, `${method} ${path}`).toBe(403)
    }
  })

  it('keeps the bytes of a model deleted while a backup runs, so the archive can hold them', async () => {
    const model = await upload(vault.baseUrl, token, 'doomed.stl', binaryCube(44))
    const { sha256 } = model.body.file
    const lock = await acquireLock(vault.deps.database.db, systemClock, 'backup-restore', 'backup')
    try {
      expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${model.body.model.id}`, { token })).status).toBe(204)
      expect(await vault.deps.blobs.stat(sha256)).not.toBeNull()
    } finally {
      if ('held' in lock) await lock.held.release()
    }
    expect((await call(vault.baseUrl, 'GET', `/api/v1/models/${model.body.model.id}`, { token })).status).toBe(404)
  })

  it('lists backups newest first, answers 404 for an unknown id, and health reports the last good one', async () => {
    const list = await call(vault.baseUrl, 'GET', '/api/v1/backups', { token })
    expect(list.body.items.length).toBeGreaterThanOrEqual(2)
    expect(list.body.destination).toEqual({
      directory: join(vault.dataDir, 'backups'),
      bucket: null,
      retention_days: 30,
    })
    const times = list.body.items.map((b: { started_at: string }) => b.started_at)
    expect([...times].sort().reverse()).toEqual(times)
    expect((await call(vault.baseUrl, 'GET', '/api/v1/backups/nope', { token })).status).toBe(404)
    const health = await call(vault.baseUrl, 'GET', '/api/v1/health')
    expect(health.body.components.backup).toMatchObject({
      status: 'pass',
      details: { directory_writable: true, last_backup_copy: 'not_configured' },
    })
    expect(health.body.components.backup.details.last_backup_age_hours).toBeLessThan(1)
  })
})

describe('retention', () => {
  const oldName = (daysAgo: number) => {
    const when = new Date(Date.now() - daysAgo * 86_400_000)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z')
      .replaceAll(':', '-')
    return `model-vault-${when}-${crypto.randomUUID()}.tar.gz`
  }

  it('prunes archives older than the retention period after a backup, keeps younger ones and foreign files', async () => {
    const dir = join(vault.dataDir, 'backups')
    const [old, younger] = [oldName(31), oldName(29)]
    for (const name of [old, younger, 'notes.txt']) writeFileSync(join(dir, name), 'x')
    const backup = await backUp(vault.baseUrl, token)
    expect(backup.status).toBe('complete')
    expect(existsSync(join(dir, old))).toBe(false)
    expect(existsSync(join(dir, younger))).toBe(true)
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true)
    expect(existsSync(join(dir, backup.file_name))).toBe(true)
  })

  it('keeps everything when VAULT_BACKUP_RETENTION_DAYS is 0', async () => {
    const keeper = await startTestVault({ ...adminEnv, VAULT_BACKUP_RETENTION_DAYS: '0' })
    try {
      const keeperToken = (await signIn(keeper.baseUrl, admin)).access_token
      const ancient = oldName(3650)
      writeFileSync(join(keeper.dataDir, 'backups', ancient), 'x')
      expect((await backUp(keeper.baseUrl, keeperToken)).status).toBe('complete')
      expect(existsSync(join(keeper.dataDir, 'backups', ancient))).toBe(true)
    } finally {
      await keeper.close()
    }
  })
})
