import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { type ServerType, serve } from '@hono/node-server'
import { createConfig, detectSpec, lintFromString } from '@redocly/openapi-core'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestVault, type TestVault } from './support/test-vault.js'

const publicUrl = 'https://prints.home.arpa'

/** Lint findings accepted at exactly one place each (`rule pointer`), like Redocly's lint-ignore file. */
const acceptedFindings = new Set([
  // The health report and the two probes take no input and no token, so they have no 4xx answer to document.
  'operation-4xx-response #/paths/~1livez/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
  'operation-4xx-response #/paths/~1api~1v1~1health/get/responses',
])

let vault: TestVault
let publicVault: TestVault
let mounted: ServerType
let mountedOrigin: string

beforeAll(async () => {
  ;[vault, publicVault] = await Promise.all([startTestVault(), startTestVault({ VAULT_PUBLIC_URL: publicUrl })])
  mounted = serve({ fetch: new Hono().route('/vault', vault.app).fetch, hostname: '127.0.0.1', port: 0 })
  await once(mounted, 'listening')
  mountedOrigin = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => mounted?.close(resolve))
  await Promise.all([vault?.close(), publicVault?.close()])
})

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  return response.text()
}

/** The parts of the document these tests read. */
interface OpenApiDocument {
  openapi: string
  info: { title: string }
  servers?: { url: string }[]
  paths: Record<string, Record<string, { operationId?: string }>>
}

const fetchDocument = async (url: string) => JSON.parse(await fetchText(url)) as OpenApiDocument

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document that describes GET /api/v1/health and names this vault as its server', async () => {
    const document = await fetchDocument(`${vault.baseUrl}/openapi.json`)
    expect(document.openapi).toMatch(/^3\.1\.\d+$/)
    expect(detectSpec(document)).toBe('oas3_1')
    expect(document.info.title).toBe('model-vault API')
    expect(document.paths['/api/v1/health']?.get?.operationId).toBe('getHealth')
    expect(document.servers?.[0]?.url).toBe('/')
  })

  it.each([
    { where: 'at the root', url: () => `${vault.baseUrl}/openapi.json` },
    { where: 'mounted under /vault', url: () => `${mountedOrigin}/vault/openapi.json` },
    { where: 'with VAULT_PUBLIC_URL set', url: () => `${publicVault.baseUrl}/openapi.json` },
  ])("passes Redocly's recommended ruleset with no errors and no warnings when served $where", async ({ url }) => {
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: await fetchText(url()), absoluteRef: url(), config })
    const keyed = problems.map((problem) => ({ problem, key: `${problem.ruleId} ${problem.location[0]?.pointer}` }))
    const findings = keyed
      .filter(({ key }) => !acceptedFindings.has(key))
      .map(({ problem, key }) => `${problem.severity} ${key}: ${problem.message}`)
    expect(findings).toEqual([])
    // An accepted finding that no longer occurs must leave the list.
    expect(keyed.map(({ key }) => key)).toEqual([...acceptedFindings])
  })

  it('names the mount prefix as its server when the vault is mounted under /vault', async () => {
    const document = await fetchDocument(`${mountedOrigin}/vault/openapi.json`)
    expect(document.servers?.[0]?.url).toBe('/vault')
  })

  it('names VAULT_PUBLIC_URL as its server when that is set', async () => {
    const document = await fetchDocument(`${publicVault.baseUrl}/openapi.json`)
    expect(document.servers?.[0]?.url).toBe(publicUrl)
  })
})
