import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatReport, runKillCampaign } from '../scripts/campaigns/kill-campaign.js'
import { ensureBuilt } from './support/built-vault.js'
import { createTestDatabase } from './support/test-database.js'

// The short version of scripts/campaigns/kill-campaign.ts: a few seeded kill -9 of the built
// service during ingest, backup and restore, every invariant checked after each restart.
describe('kill -9 at random moments of ingest, backup and restore', () => {
  let dataDir: string
  let database: Awaited<ReturnType<typeof createTestDatabase>>
  let buildDir: string

  // Building the service (when the sources changed since the last build) is not the campaign.
  beforeAll(async () => {
    buildDir = await ensureBuilt()
    dataDir = await mkdtemp(join(tmpdir(), 'vault-kill-'))
    database = await createTestDatabase(dataDir)
  }, 600_000)
  afterAll(async () => {
    await database?.drop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('leaves no stuck record, dead lock, leftover, orphan, missing or damaged blob after any restart', async () => {
    const report = await runKillCampaign({
      buildDir,
      dataDir,
      databaseUrl: database.url,
      kills: 6,
      seed: 12,
    })
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBe(6)
    expect(report.checks).toBeGreaterThanOrEqual(7 * 9)
    expect(report.violations, formatReport(report, 'kill campaign')).toEqual([])
  }, 180_000)
})
