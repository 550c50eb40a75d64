import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { backUp, unpack } from './support/backups.js'
import { createTestDatabase } from './support/test-database.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, sliceShape, upload } from './support/uploads.js'

/**
 * The manual restore procedure of docs/backup-restore.md ("By hand, as a last resort"), step by step: an archive unpacked with the system's
 * tar and laid out in a fresh data directory gives back every user, model, file and thumbnail.
 */
let original: TestVault
let restored: TestVault | undefined
let dropRestoredDatabase: (() => Promise<void>) | undefined
beforeAll(async () => {
  original = await startTestVault(adminEnv)
})
afterAll(async () => {
  await restored?.close()
  await dropRestoredDatabase?.()
  await original.close()
})

describe('restoring an archive by hand onto a fresh data directory', () => {
  it('brings back users, models, file bytes and thumbnails', async () => {
    const token = (await signIn(original.baseUrl, admin)).access_token
    const sliced = sliceShape('cylinder')
    const files = [
      (await upload(original.baseUrl, token, 'cylinder.stl', sliced.stl)).body,
      (await upload(original.baseUrl, token, 'cylinder.gcode', sliced.gcode)).body,
      (await upload(original.baseUrl, token, 'cube.stl', binaryCube(9))).body,
    ]
    // The thumbnails are rendered in the background; the archive should hold them.
    await original.deps.analysis.idle()
    const backup = await backUp(original.baseUrl, token)
    expect(backup.status).toBe('complete')

    // Steps 4 and 5: unpack, then put each part where a fresh install keeps it.
    const unpacked = unpack(join(original.dataDir, 'backups', backup.file_name))
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-restored-'))
    for (const [from, to] of [
      ['blobs', 'blobs'],
      ['thumbs', 'thumbs'],
    ]) {
      for (const key of readdirSync(join(unpacked, from!))) {
        mkdirSync(join(dataDir, to!, key.slice(0, 2)), { recursive: true })
        copyFileSync(join(unpacked, from!, key), join(dataDir, to!, key.slice(0, 2), key))
      }
    }
    const env: Record<string, string> = {}
    if (inject('databaseKind') === 'sqlite') {
      mkdirSync(join(dataDir, 'db'))
      copyFileSync(join(unpacked, 'db', 'vault.sqlite'), join(dataDir, 'db', 'vault.sqlite'))
      env.VAULT_DATABASE_URL = `sqlite:${join(dataDir, 'db', 'vault.sqlite')}`
    } else {
      const database = await createTestDatabase(dataDir)
      dropRestoredDatabase = database.drop
      execFileSync('pg_restore', ['--no-owner', `--dbname=${database.url}`, join(unpacked, 'db', 'vault.pgdump')])
      env.VAULT_DATABASE_URL = database.url
    }

    // Step 6: start on the restored data; the same admin signs in and everything is there.
    restored = await startTestVault({ VAULT_DATA_DIR: dataDir, ...env })
    const restoredToken = (await signIn(restored.baseUrl, admin)).access_token
    for (const { file, model } of files) {
      const detail = await call(restored.baseUrl, 'GET', `/api/v1/models/${model.id}`, { token: restoredToken })
      expect(detail.status).toBe(200)
      expect(detail.body.files.map((f: { id: string }) => f.id)).toContain(file.id)
      const download = async (vault: TestVault, bearer: string) =>
        Buffer.from(
          await (
            await fetch(`${vault.baseUrl}/api/v1/files/${file.id}/content`, {
              headers: { Authorization: `Bearer ${bearer}` },
            })
          ).arrayBuffer(),
        )
      const bytes = await download(restored, restoredToken)
      expect(bytes.length).toBe(file.size)
      expect(bytes.equals(await download(original, token))).toBe(true)
      if (file.has_thumbnail) {
        const thumbnail = await fetch(`${restored.baseUrl}${file.thumbnail_url}`, {
          headers: { Authorization: `Bearer ${restoredToken}` },
        })
        expect(thumbnail.status).toBe(200)
      }
    }
    const search = await call(restored.baseUrl, 'GET', '/api/v1/models?q=cylinder', { token: restoredToken })
    expect(search.body.items.map((m: { name: string }) => m.name)).toContain('cylinder')
  })
})
