import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { putContentAddressed, streamOf } from '../src/core/blobs/put-content-addressed.js'
import { admin, adminEnv, call, login, signIn } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { type RawReply, rawRequest, sendThenRead } from './support/raw-http.js'
import { mountSmallFilesystem, type SmallFilesystem } from './support/small-filesystem.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/** Incompressible bytes, so a gzipped archive of them is as large as they are. */
function noise(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes)
  for (let i = 0; i < bytes; i += 65536) crypto.getRandomValues(out.subarray(i, Math.min(bytes, i + 65536)))
  return out
}

describe('a full backup directory', () => {
  let disk: SmallFilesystem
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    disk = mountSmallFilesystem(2)
    vault = await startTestVault({ ...adminEnv, VAULT_BACKUP_DIR: disk.dir })
    token = (await signIn(vault.baseUrl, admin)).access_token
    for (let i = 0; i < 3; i++)
      await putContentAddressed(vault.deps.blobs, vault.deps.createSha256, streamOf(noise(1024 * 1024)))
  })
  afterAll(async () => {
    await vault?.close()
    disk?.unmount()
  })

  it('fails the backup with the reason on its record, removes the partial archive, and the service stays up', async () => {
    const backup = await backUp(vault.baseUrl, token)
    expect(backup.status).toBe('failed')
    expect(backup.error).toMatch(/ENOSPC|no space|disk is full/i)
    // No archive and no partial one; the snapshot's scratch folder may stay (start-up clears it).
    expect(readdirSync(disk.dir).filter((name) => name !== '.scratch')).toEqual([])
    expect((await call(vault.baseUrl, 'GET', '/api/v1/health')).status).toBeLessThan(500)
    const again = await backUp(vault.baseUrl, token)
    expect(again.status).toBe('failed')
  })
})

describe('a full disk under the SQLite database', () => {
  let disk: SmallFilesystem
  let vault: TestVault
  beforeAll(async () => {
    disk = mountSmallFilesystem(4)
    vault = await startTestVault({ ...adminEnv, VAULT_DATABASE_URL: `sqlite:${disk.dir}/vault.sqlite` })
    await signIn(vault.baseUrl, admin)
  })
  afterAll(async () => {
    await vault?.close()
    disk?.unmount()
  })

  it('answers sign-in 507 insufficient_storage, and signs in again once there is room', async () => {
    const filler = disk.fill()
    let refused = await login(vault.baseUrl, admin)
    // The first writes may still fit in pages SQLite already holds; keep signing in until the disk bites.
    for (let i = 0; i < 50 && refused.status === 200; i++) refused = await login(vault.baseUrl, admin)
    expect(refused.status, JSON.stringify(vault.logs.filter((line) => line.level === 'error').slice(-1))).toBe(507)
    expect(refused.headers.get('content-type')).toBe('application/problem+json')
    expect(refused.body.code).toBe('insufficient_storage')
    rmSync(filler)
    expect((await login(vault.baseUrl, admin)).status).toBe(200)
  })
})

describe('an upload refused for a full disk', () => {
  let disk: SmallFilesystem
  let vault: TestVault
  let token: string
  beforeAll(async () => {
    disk = mountSmallFilesystem(2)
    // The stores live on the small disk; the database stays in the test's own directory.
    vault = await startTestVault({ ...adminEnv, VAULT_DATA_DIR: disk.dir })
    token = (await signIn(vault.baseUrl, admin)).access_token
  })
  afterAll(async () => {
    await vault?.close()
    disk?.unmount()
  })

  /** A raw 24 MiB PUT upload of `name` (filled with `fill`) by `client`, which must read the 507. */
  async function expectFullDiskAnswer(
    client: (baseUrl: string, head: string, body: Uint8Array[]) => Promise<RawReply>,
    name: string,
    fill: number,
  ) {
    const size = 24 * 1024 * 1024
    const chunk = new Uint8Array(256 * 1024).fill(fill)
    const reply = await client(
      vault.baseUrl,
      `PUT /api/v1/ingest/${name} HTTP/1.1\r\nHost: vault\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`,
      Array.from({ length: size / chunk.length }, () => chunk),
    )
    expect(reply.status, reply.body).toBe(507)
    expect(JSON.parse(reply.body).code).toBe('insufficient_storage')
  }

  it('lets the client read the 507 while it is still sending, and keeps nothing', async () => {
    const staging = () => readdirSync(join(disk.dir, 'blobs', '.staging'), { recursive: true }).sort()
    const before = staging()
    await expectFullDiskAnswer(rawRequest, 'big.bin', 7)
    expect(staging()).toEqual(before)
  })

  it('lets a client that reads only after sending (Python requests, a slicer hook) read the 507 too', async () => {
    await expectFullDiskAnswer(sendThenRead, 'hook.bin', 9)
  })

  it('lets fetch read the 507 of an upload it is still streaming', async () => {
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 64 * 1024 * 1024) return controller.close()
        sent += 256 * 1024
        controller.enqueue(new Uint8Array(256 * 1024).fill(5))
      },
    })
    const res = await fetch(`${vault.baseUrl}/api/v1/ingest/streamed.bin`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(507)
    expect((await res.json()).code).toBe('insufficient_storage')
  })
})
