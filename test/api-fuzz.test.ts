import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatReport, runApiFuzz } from '../scripts/campaigns/api-fuzz.js'
import { admin, adminEnv, authHeaders, signIn } from './support/accounts.js'
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

  // Found by the long campaign on PostgreSQL (text holds no NUL): a 500 for PATCH /models/{id} and /send.
  it('refuses a NUL character in a JSON string with 422 and stores nothing, on either database', async () => {
    const token = (await signIn(vault.baseUrl, admin)).access_token
    const body = JSON.stringify({ name: 'Fuzz NUL', description: 'before\u0000after' })
    const res = await fetch(`${vault.baseUrl}/api/v1/collections`, {
      method: 'POST',
      headers: { ...authHeaders(token), 'Content-Type': 'application/json' },
      body,
    })
    expect(res.status).toBe(422)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    expect(((await res.json()) as { code: string }).code).toBe('validation_failed')
    const list = (await (
      await fetch(`${vault.baseUrl}/api/v1/collections`, { headers: authHeaders(token) })
    ).json()) as {
      items: { name: string }[]
    }
    expect(list.items.map((item) => item.name)).not.toContain('Fuzz NUL')
  })
})
