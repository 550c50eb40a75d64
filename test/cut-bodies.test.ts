import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatReport, runCutBodies } from '../scripts/campaigns/cut-bodies.js'
import { type ServiceProcess, startServiceProcess } from '../scripts/campaigns/service-process.js'
import { ensureBuilt } from './support/built-vault.js'

// The short version of scripts/campaigns/cut-bodies.ts: every route that takes a body, cut at a
// dozen places over a real socket against the built service.
describe('request bodies cut off mid-way by the client', () => {
  let dataDir: string
  let service: ServiceProcess

  // Building the service (when the sources changed since the last build) is not the campaign.
  beforeAll(async () => {
    const buildDir = await ensureBuilt()
    dataDir = await mkdtemp(join(tmpdir(), 'vault-cut-'))
    service = await startServiceProcess(buildDir, {
      VAULT_DATA_DIR: dataDir,
      VAULT_DATABASE_URL: `sqlite:${dataDir}/db/vault.sqlite`,
    })
  }, 600_000)
  afterAll(async () => {
    await service?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('never stop the service, answer no 5xx, store nothing of a cut body and leave nothing behind', async () => {
    const report = await runCutBodies({ service, dataDir, offsets: 12, fileBytes: 1024 * 1024 })
    expect(report.cases).toBeGreaterThanOrEqual(7 * 10)
    const faults = [
      ...report.crashes,
      ...report.stalls,
      ...report.serverErrors,
      ...report.bytesLost,
      ...report.leftovers,
    ]
    expect(faults, formatReport(report)).toEqual([])
    expect(report.uploadAfter).toBe(201)
  }, 180_000)
})
