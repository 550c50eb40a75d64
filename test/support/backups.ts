import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { ManifestEntry } from '../../src/core/backup/manifest.js'
import { call, type Reply } from './accounts.js'

/** A manifest as a test damages it: any field may change type or go; the entries stay a list. */
export type DamageableManifest = { [field: string]: unknown; entries: ManifestEntry[] }

/** Polls a backup until it is no longer running; fails the test after 60 s. */
export async function waitForBackup(baseUrl: string, token: string, id: string): Promise<Reply['body']> {
  for (let i = 0; i < 600; i++) {
    const reply = await call(baseUrl, 'GET', `/api/v1/backups/${id}`, { token })
    expect(reply.status).toBe(200)
    if (reply.body.status !== 'running') return reply.body
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`backup ${id} still running after 60 s`)
}

/** Starts a backup over the API and waits for it to end. */
export async function backUp(baseUrl: string, token: string): Promise<Reply['body']> {
  const started = await call(baseUrl, 'POST', '/api/v1/backups', { token })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  return waitForBackup(baseUrl, token, started.body.id)
}

/** Unpacks an archive with the system's tar, as an admin would by hand. */
export function unpack(archivePath: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vault-unpacked-'))
  execFileSync('tar', ['-xzf', archivePath, '-C', dir])
  return dir
}
