import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import tar from 'tar-stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNativeSha256 } from '../src/adapters/node/native-sha256.js'
import { zlibCompression } from '../src/adapters/node/zlib-compression.js'
import { verifyArchive } from '../src/core/backup/verify-archive.js'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { backUp, type DamageableManifest } from './support/backups.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let vault: TestVault
let archive: Buffer
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  const token = (await signIn(vault.baseUrl, admin)).access_token
  await upload(vault.baseUrl, token, 'cube.stl', binaryCube(15))
  const backup = await backUp(vault.baseUrl, token)
  archive = readFileSync(join(vault.dataDir, 'backups', backup.file_name))
})
afterAll(async () => vault.close())

const verify = (bytes: Uint8Array) =>
  verifyArchive(
    { createSha256: createNativeSha256, compression: zlibCompression },
    new Blob([new Uint8Array(bytes)]).stream(),
  )
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

type Entry = { name: string; body?: string; type?: 'file' | 'symlink' | 'directory'; linkname?: string }

/** A gzipped tar of the given entries, with a manifest listing `listed` (default: the file entries). */
async function craft(entries: Entry[], manifestOverride?: (manifest: DamageableManifest) => void): Promise<Buffer> {
  const pack = tar.pack()
  const files = entries.filter((e) => (e.type ?? 'file') === 'file')
  const manifest: DamageableManifest = {
    format: 'model-vault-backup',
    format_version: 1,
    backup_id: 'crafted',
    created_at: new Date().toISOString(),
    app_version: '0.0.0',
    schema_version: 1,
    database_kind: 'sqlite',
    storage_kind: 'local',
    installation_id: 'x',
    counts: { users: 0, models: 0, files: 0, blobs: 0, thumbnails: 0 },
    entries: files.map((e) => ({ path: e.name, size: Buffer.byteLength(e.body ?? ''), sha256: sha256(e.body ?? '') })),
  }
  manifestOverride?.(manifest)
  for (const entry of [...entries, { name: 'manifest.json', body: JSON.stringify(manifest) }]) {
    const type = 'type' in entry ? entry.type : undefined
    if (type === 'symlink') pack.entry({ name: entry.name, type: 'symlink', linkname: (entry as Entry).linkname })
    else if (type === 'directory') pack.entry({ name: entry.name, type: 'directory' })
    else pack.entry({ name: entry.name }, entry.body ?? '')
  }
  pack.finalize()
  const chunks: Buffer[] = []
  for await (const chunk of pack) chunks.push(chunk as Buffer)
  return gzipSync(Buffer.concat(chunks))
}

const blob = (body: string) => ({ name: `blobs/${sha256(body)}`, body })
const expectRefused = async (bytes: Uint8Array, reason: RegExp) => {
  const error = await verify(bytes).then(
    () => null,
    (e: unknown) => e as { code?: string; message: string },
  )
  expect(error, 'the archive was accepted').not.toBeNull()
  expect(error!.code).toBe('invalid_archive')
  expect(error!.message).toMatch(reason)
}

describe('verifying a backup archive before anything is touched', () => {
  it('accepts an archive the vault wrote, returning its manifest', async () => {
    const manifest = await verify(archive)
    expect(manifest.counts.files).toBe(1)
    expect(manifest.entries.some((e) => e.path === 'db/vault.sqlite' || e.path === 'db/vault.pgdump')).toBe(true)
  })

  it('refuses every flipped byte that changes what the archive holds, and hangs on none', async () => {
    const original = gunzipSync(archive)
    const sameContent = (bytes: Buffer) => {
      try {
        return gunzipSync(bytes).equals(original)
      } catch {
        return false
      }
    }
    // Every 97th byte past the gzip header (whose time and OS bytes no checksum covers).
    for (let at = 10; at < archive.length; at += 97) {
      const damaged = Buffer.from(archive)
      damaged[at] = damaged[at]! ^ 0x5a
      // A few flips land in bits the inflater ignores: same content, rightly accepted.
      if (sameContent(damaged)) await expect(verify(damaged)).resolves.toBeDefined()
      else await expectRefused(damaged, /not usable/)
    }
  })

  it('refuses a truncated archive', async () => {
    await expectRefused(archive.subarray(0, Math.floor(archive.length * 0.8)), /not usable/)
  })

  it('refuses path traversal, absolute paths, links, directories and unexpected names', async () => {
    await expectRefused(await craft([{ name: '../evil', body: 'x' }]), /unexpected entry "\.\.\/evil"/)
    await expectRefused(await craft([{ name: '/etc/passwd', body: 'x' }]), /unexpected entry/)
    await expectRefused(await craft([{ name: 'blobs/../../x', body: 'x' }]), /unexpected entry/)
    await expectRefused(
      await craft([{ name: `blobs/${sha256('x')}`, type: 'symlink', linkname: '/etc/passwd' }]),
      /is a symlink, not a regular file/,
    )
    await expectRefused(await craft([{ name: 'blobs', type: 'directory' }]), /is a directory/)
    await expectRefused(await craft([{ name: 'README.txt', body: 'hi' }]), /unexpected entry "README.txt"/)
  })

  it('refuses a blob whose bytes do not match its name, and a repeated entry', async () => {
    await expectRefused(await craft([{ name: `blobs/${sha256('x')}`, body: 'y' }]), /does not match its hash/)
    await expectRefused(await craft([blob('x'), blob('x')]), /appears twice/)
  })

  it('refuses a manifest that does not match: a missing entry, a wrong hash, an unlisted entry, a newer format', async () => {
    await expectRefused(
      await craft([blob('a')], (m) => m.entries.push({ path: `blobs/${sha256('b')}`, size: 1, sha256: sha256('b') })),
      /listed in the manifest but missing/,
    )
    await expectRefused(
      await craft([blob('a')], (m) => (m.entries[0]!.sha256 = sha256('other'))),
      /does not match the manifest/,
    )
    await expectRefused(await craft([blob('a')], (m) => (m.entries = [])), /is not in the manifest/)
    await expectRefused(await craft([blob('a')], (m) => (m.format_version = 2)), /format version 2/)
    await expectRefused(await craft([blob('a')], (m) => delete m.format), /not a model-vault backup manifest/)
  })

  it('refuses an archive without a manifest, and bytes that are not gzip', async () => {
    const pack = tar.pack()
    pack.entry({ name: `blobs/${sha256('a')}` }, 'a')
    pack.finalize()
    const chunks: Buffer[] = []
    for await (const chunk of pack) chunks.push(chunk as Buffer)
    await expectRefused(gzipSync(Buffer.concat(chunks)), /has no manifest/)
    await expectRefused(Buffer.from('not gzip at all'), /cannot be read/)
  })
})
