import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  burstFiles,
  readLoop,
  runUploadBurst,
  stagingLeftovers,
  unreadableFiles,
} from '../scripts/campaigns/upload-burst.js'
import { admin, adminEnv, login } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// The short version of scripts/campaigns/upload-burst.ts: correctness only. Its RSS and reader
// latency figures come from the script against the built service (docs/reliability.md).
describe('a burst of concurrent uploads with readers browsing meanwhile', () => {
  let vault: TestVault
  let authorization: string

  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    authorization = `Bearer ${(await login(vault.baseUrl, admin)).body.access_token}`
  })
  afterAll(() => vault?.close())

  it('stores every upload whole, answers every reader, and leaves nothing in staging', async () => {
    const files = burstFiles({ uploads: 30, totalMiB: 8, seed: 7 })
    const burst = await runUploadBurst(vault.baseUrl, authorization, files, (stopped) =>
      readLoop(vault.baseUrl, authorization, 4, stopped),
    )
    expect(burst.uploadStatuses).toEqual({ 201: 30 })
    expect(burst.stored).toHaveLength(30)
    expect(await unreadableFiles(vault.baseUrl, authorization, burst.stored)).toEqual([])
    expect(burst.reads.latenciesMs.length).toBeGreaterThan(0)
    expect(Object.keys(burst.reads.statuses)).toEqual(['200'])
    const listed = await fetch(`${vault.baseUrl}/api/v1/models?limit=100`, {
      headers: { Authorization: authorization },
    })
    expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(30)
    expect(await stagingLeftovers(vault.baseUrl, authorization, vault.dataDir)).toEqual([])
  }, 180_000)
})
