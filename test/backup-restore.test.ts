import { copyFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimJobs } from '../src/core/analysis/analysis-queue.js'
import { latestSchemaVersion } from '../src/core/db/migrate.js'
import { getPrinterRow } from '../src/core/printers/printers.js'
import { admin, adminEnv, call, createApiKeyAs, expectProblem, newAccountWithKey, signIn } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, sliceShape, upload } from './support/uploads.js'

/** Everything a user can see of the library, with each file's bytes and thumbnail hashed. */
async function libraryState(vault: TestVault, token: string) {
  const models = await call(vault.baseUrl, 'GET', '/api/v1/models?limit=200&sort=name', { token })
  expect(models.status).toBe(200)
  const details = []
  for (const item of models.body.items) {
    const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${item.id}`, { token })
    const files = []
    for (const file of detail.body.files) {
      const content = await fetch(`${vault.baseUrl}/api/v1/files/${file.id}/content`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      const thumbnail = await fetch(`${vault.baseUrl}/api/v1/files/${file.id}/thumbnail`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      files.push({
        file,
        content: Buffer.from(await content.arrayBuffer()).toString('base64'),
        thumbnail: thumbnail.status === 200 ? Buffer.from(await thumbnail.arrayBuffer()).length : null,
      })
    }
    details.push({ model: detail.body, files })
  }
  return details
}

const connectionCredentials = (vault: TestVault, row: { credentials: string | null }) =>
  vault.deps.keys.current().credentials.open(row.credentials!)

let vault: TestVault
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
})
afterAll(async () => vault.close())

describe('restoring a backup over the API', () => {
  it('puts back the models, files, users and API keys of the backup and ends every session', async () => {
    const rootToken = (await signIn(vault.baseUrl, admin)).access_token
    const sliced = sliceShape('cylinder')
    await upload(vault.baseUrl, rootToken, 'cylinder.stl', sliced.stl)
    await upload(vault.baseUrl, rootToken, 'cylinder.gcode', sliced.gcode)
    const cube = (await upload(vault.baseUrl, rootToken, 'cube.stl', binaryCube(9))).body
    await vault.deps.analysis.idle()
    const maker = await newAccountWithKey(vault.baseUrl, rootToken)
    const before = await libraryState(vault, rootToken)
    const backup = await backUp(vault.baseUrl, rootToken)
    expect(backup.status).toBe('complete')

    // After the backup: a model goes, another comes, a key is revoked, a user is added.
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${cube.model.id}`, { token: rootToken })).status).toBe(
      204,
    )
    await upload(vault.baseUrl, rootToken, 'late.stl', binaryCube(4))
    await vault.deps.analysis.idle()
    expect(
      (await call(vault.baseUrl, 'DELETE', `/api/v1/api-keys/${maker.key.id}`, { token: maker.token })).status,
    ).toBe(200)
    const lateKey = await createApiKeyAs(vault.baseUrl, maker.token)
    const later = await backUp(vault.baseUrl, rootToken)

    const restore = await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: rootToken })
    expect(restore.status, JSON.stringify(restore.body)).toBe(200)
    expect(restore.body.backup_id).toBe(backup.id)
    expect(restore.body.schema_version).toBe(latestSchemaVersion)
    expect(restore.body.source).toMatchObject({ location: 'local', file_name: backup.file_name, sha256: backup.sha256 })
    // The deleted cube's bytes come back; its thumbnail looks like the late cube's, which kept it.
    expect(restore.body.added).toEqual({ blobs: 1, thumbnails: 0 })
    expect(restore.body.sessions_revoked).toBeGreaterThanOrEqual(3)
    const keys = restore.body.api_keys.map((key: { prefix: string; revoked_at: string | null }) => [
      key.prefix,
      key.revoked_at,
    ])
    expect(keys).toContainEqual([maker.key.prefix, null]) // revoked after the backup: live again
    expect(keys.map(([prefix]: [string]) => prefix)).not.toContain(lateKey.prefix)
    expect(readdirSync(join(vault.dataDir, 'backups'))).toContain(restore.body.safety_copy)

    // The caller's session ended with the restore; the restored data is served at once.
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/models', { token: rootToken }), 401, 'invalid_token')
    const token = (await signIn(vault.baseUrl, admin)).access_token
    expect(await libraryState(vault, token)).toEqual(before)
    expect((await signIn(vault.baseUrl, { username: maker.username, api_key: maker.key.key })).user.username).toBe(
      maker.username,
    )
    expect(
      (
        await call(vault.baseUrl, 'POST', '/api/v1/auth/login', {
          json: { username: maker.username, api_key: lateKey.key },
        })
      ).status,
    ).toBe(401)

    // The catalogue lists the restored backup as complete, and the later one again.
    const listed = await call(vault.baseUrl, 'GET', '/api/v1/backups', { token })
    const byId = new Map(listed.body.items.map((item: { id: string }) => [item.id, item]))
    expect(byId.get(backup.id)).toMatchObject({ status: 'complete', sha256: backup.sha256 })
    expect(byId.get(later.id)).toMatchObject({ status: 'complete', file_name: later.file_name })
    // A new backup can start at once: the restored data holds no stale lock.
    expect((await backUp(vault.baseUrl, token)).status).toBe('complete')
  })

  it('restores onto a fresh install whose backup directory holds the archive', async () => {
    const token = (await signIn(vault.baseUrl, admin)).access_token
    await upload(vault.baseUrl, token, 'fresh.stl', binaryCube(7))
    // Rendered first: the state compared after the restore is the one the backup holds.
    await vault.deps.analysis.idle()
    const printer = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: {
        name: 'Farm 1',
        provider: 'octoprint',
        address: 'http://127.0.0.1:9',
        credentials: { api_key: 'octo-secret' },
      },
    })
    expect(printer.status, JSON.stringify(printer.body)).toBe(201)
    const before = await libraryState(vault, token)
    const backup = await backUp(vault.baseUrl, token)
    const fresh = await startTestVault({
      VAULT_ADMIN_USERNAME: 'other',
      VAULT_ADMIN_PASSWORD: 'other-password-for-tests',
    })
    // Another process of the fresh install, which serves no request until the restore is over.
    const twin = await startTestVault({}, { shareWith: fresh })
    try {
      copyFileSync(join(vault.dataDir, 'backups', backup.file_name), join(fresh.dataDir, 'backups', backup.file_name))
      const freshToken = (await signIn(fresh.baseUrl, { username: 'other', password: 'other-password-for-tests' }))
        .access_token
      const restore = await call(fresh.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: freshToken })
      expect(restore.status, JSON.stringify(restore.body)).toBe(200)
      const restoredToken = (await signIn(fresh.baseUrl, admin)).access_token
      expect(await libraryState(fresh, restoredToken)).toEqual(before)
      expect(
        (
          await call(fresh.baseUrl, 'POST', '/api/v1/auth/login', {
            json: { username: 'other', password: 'other-password-for-tests' },
          })
        ).status,
      ).toBe(401)
      // Printer credentials were sealed with the old install's key, which came back with the data.
      const row = await getPrinterRow(fresh.deps, printer.body.id)
      expect(await connectionCredentials(fresh, row)).toEqual({ api_key: 'octo-secret' })
      // The other process takes over the restored keys too: it accepts the token signed with the
      // restored signing key and opens the credentials sealed with the restored key.
      expect((await call(twin.baseUrl, 'GET', '/api/v1/me', { token: restoredToken })).status).toBe(200)
      expect(await connectionCredentials(twin, row)).toEqual({ api_key: 'octo-secret' })
    } finally {
      await twin.close()
      await fresh.close()
    }
  })

  it('brings back the analysis queue: thumbnails still waiting or being rendered at the backup are rendered by the restored install', async () => {
    // This install renders nothing, so the cube's thumbnail is still queued when the backup is taken.
    const waiting = await startTestVault({ ...adminEnv, VAULT_ANALYSIS_WORKERS: '0' })
    const fresh = await startTestVault({
      VAULT_ADMIN_USERNAME: 'other',
      VAULT_ADMIN_PASSWORD: 'other-password-for-tests',
    })
    try {
      const token = (await signIn(waiting.baseUrl, admin)).access_token
      const cube = (await upload(waiting.baseUrl, token, 'queued.stl', binaryCube(6.5))).body
      expect(cube.model).toMatchObject({ has_thumbnail: false, analysing_files: 1 })
      // A process of this install was rendering it as the backup was taken, under a lease of an hour.
      const now = new Date()
      const claimed = await claimJobs(waiting.deps.database.db, {
        owner: 'a-process-rendering-it',
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + 3_600_000).toISOString(),
        limit: 1,
      })
      expect(claimed).toMatchObject([{ sha256: cube.file.sha256 }])
      const backup = await backUp(waiting.baseUrl, token)
      expect(backup.status).toBe('complete')

      copyFileSync(join(waiting.dataDir, 'backups', backup.file_name), join(fresh.dataDir, 'backups', backup.file_name))
      const freshToken = (await signIn(fresh.baseUrl, { username: 'other', password: 'other-password-for-tests' }))
        .access_token
      const restore = await call(fresh.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token: freshToken })
      expect(restore.status, JSON.stringify(restore.body)).toBe(200)
      await fresh.deps.analysis.idle()
      const restoredToken = (await signIn(fresh.baseUrl, admin)).access_token
      const model = await call(fresh.baseUrl, 'GET', `/api/v1/models/${cube.model.id}`, { token: restoredToken })
      expect(model.body).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
      const analysis = await call(fresh.baseUrl, 'GET', '/api/v1/analysis', { token: restoredToken })
      expect(analysis.body).toMatchObject({ queued: 0, running: 0, failed: 0 })
      // That process's claim did not come back with the data, nor count as an attempt.
      const job = await fresh.deps.database.db
        .selectFrom('analysis_jobs')
        .selectAll()
        .where('sha256', '=', cube.file.sha256)
        .executeTakeFirstOrThrow()
      expect(job).toMatchObject({ state: 'done', attempts: 1, lease_owner: null })
    } finally {
      await fresh.close()
      await waiting.close()
    }
  })

  it("replaces only what is the vault's: other tables in a shared PostgreSQL database stay, an SQLite file is the vault's alone", async () => {
    const token = (await signIn(vault.baseUrl, admin)).access_token
    const backup = await backUp(vault.baseUrl, token)
    await sql`create table other_app_notes (note text)`.execute(vault.deps.database.db)
    await sql`insert into other_app_notes values ('keep me')`.execute(vault.deps.database.db)
    expect((await call(vault.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })).status).toBe(200)
    const { db, kind } = vault.deps.database
    const tables =
      kind === 'postgres'
        ? sql`select tablename as name from pg_tables where schemaname = 'public'`
        : sql`select name from sqlite_master where type = 'table'`
    const names = (await tables.execute(db)).rows.map((row) => (row as { name: string }).name)
    if (kind === 'postgres') {
      expect((await sql<{ note: string }>`select note from other_app_notes`.execute(db)).rows).toEqual([
        { note: 'keep me' },
      ])
    } else {
      expect(names).not.toContain('other_app_notes')
    }
    expect(names).toContain('models')
  })

  it('answers 404 for a backup with no archive and changes nothing', async () => {
    const token = (await signIn(vault.baseUrl, admin)).access_token
    expectProblem(
      await call(vault.baseUrl, 'POST', `/api/v1/backups/${crypto.randomUUID()}/restore`, { token }),
      404,
      'not_found',
    )
    expect((await call(vault.baseUrl, 'GET', '/api/v1/models', { token })).status).toBe(200)
  })
})
