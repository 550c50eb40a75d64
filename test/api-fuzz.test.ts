import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatReport, runApiFuzz } from '../scripts/campaigns/api-fuzz.js'
import { admin, adminEnv } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

// The short version of scripts/campaigns/api-fuzz.ts: seeded valid and mutated requests to every
// operation of the live OpenAPI document, each answer checked against what the document says.
describe('every operation of the OpenAPI document under valid and mutated requests', () => {
  let vault: TestVault
  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
  })
  afterAll(async () => {
    await vault?.close()
  })

  it('never answers 5xx, answers every 4xx as a documented problem and every 2xx as documented', async () => {
    const report = await runApiFuzz({ baseUrl: vault.baseUrl, ...admin, count: 5, seed: 12 })
    // Every operation got its share, and the requests reached both answers that succeed and refusals.
    expect(report.operations).toBeGreaterThanOrEqual(59)
    expect(report.requests).toBe(report.operations * 5)
    expect(report.byClass['2xx']).toBeGreaterThan(40)
    expect(report.byClass['4xx']).toBeGreaterThan(100)
    expect(report.violations.length, formatReport(report)).toBe(0)
  }, 180_000)
})
