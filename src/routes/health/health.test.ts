import { afterEach, describe, expect, inject, it } from 'vitest'
import { createTestVault, type InProcessVault, removeDataFolder } from '../../../test/support/test-vault.js'
import { latestSchemaVersion } from '../../core/db/migrate.js'

let vault: InProcessVault
afterEach(async () => vault?.close())

describe('GET /api/v1/health', () => {
  it('needs no token and reports identity and all four components as passing', async () => {
    vault = await createTestVault()
    const res = await vault.app.request('/api/v1/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('content-type')).toBe('application/health+json')
    const body = await res.json()
    expect(body.service).toMatchObject({
      name: 'model-vault',
      version: '0.0.0-test',
      instance_id: vault.deps.service.instanceId,
    })
    expect(Date.parse(body.service.started_at)).not.toBeNaN()
    expect(Object.keys(body.components).sort()).toEqual(['backup', 'database', 'printer-provider', 'storage'])
    expect(body.components.database).toMatchObject({
      status: 'pass',
      required: true,
      details: { kind: inject('databaseKind'), schema_version: latestSchemaVersion },
    })
    expect(body.components.storage).toMatchObject({ status: 'pass', required: true, details: { kind: 'local' } })
    // A new install has no backup yet: the service works, and health says what it lacks.
    expect(body.components.backup).toMatchObject({
      status: 'warn',
      required: false,
      reason: 'no backup has been made yet',
      details: { directory_writable: true },
    })
    expect(body.components['printer-provider']).toMatchObject({
      status: 'pass',
      required: false,
      details: { printers: 0 },
    })
    expect(body.status).toBe('warn')
  })

  it('answers 503 and names the database when the database is gone', async () => {
    vault = await createTestVault()
    await vault.deps.database.close()
    const res = await vault.app.request('/api/v1/health')
    expect(res.status).toBe(503)
    expect(res.headers.get('content-type')).toBe('application/health+json')
    const body = await res.json()
    expect(body.status).toBe('fail')
    expect(body.components.database.status).toBe('fail')
    expect(body.components.database.reason).toMatch(/^check failed \(/)
    expect(body.components.storage.status).toBe('pass')
  })

  it('answers 503 and names storage when the blob volume is gone, without revealing its path', async () => {
    vault = await createTestVault()
    await removeDataFolder(vault, 'blobs')
    const res = await vault.app.request('/api/v1/health')
    expect(res.status).toBe(503)
    const body = await res.json()
    expect(body.components.storage).toMatchObject({
      status: 'fail',
      reason: 'storage directory is not writable (ENOENT)',
    })
    expect(JSON.stringify(body)).not.toContain(vault.dataDir)
  })

  it('stays 200 but warns when only the backup directory is unusable', async () => {
    vault = await createTestVault()
    await removeDataFolder(vault, 'backups')
    const res = await vault.app.request('/api/v1/health')
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.status).toBe('warn')
    expect(body.components.backup).toMatchObject({ status: 'fail', required: false })
    expect(body.components.backup.reason).toMatch(/^backup directory is not writable \(ENOENT\)/)
  })

  it('reveals no secrets or paths from the configuration', async () => {
    vault = await createTestVault({ VAULT_JWT_SECRET: 'a-very-long-secret-value-for-tokens-123456' })
    const text = await (await vault.app.request('/api/v1/health')).text()
    expect(text).not.toContain('a-very-long-secret')
    expect(text).not.toContain(vault.dataDir)
    expect(text).not.toContain(new URL(vault.databaseUrl.replace(/^sqlite:/, 'file:')).pathname)
  })
})

describe('probes: GET /livez and GET /readyz', () => {
  const probe = async (path: string) => {
    const res = await vault.app.request(path)
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
  }

  it('are ok on a working install, without a token, a new install’s missing backup included', async () => {
    vault = await createTestVault()
    expect(await probe('/livez')).toEqual({ status: 200, type: 'text/plain; charset=UTF-8', text: 'ok' })
    expect(await probe('/readyz')).toEqual({ status: 200, type: 'text/plain; charset=UTF-8', text: 'ok' })
  })

  it('readiness fails, naming the component, when the database or the blob volume is gone; liveness does not', async () => {
    vault = await createTestVault()
    await removeDataFolder(vault, 'blobs')
    expect(await probe('/readyz')).toMatchObject({
      status: 503,
      text: 'not ready: storage: storage directory is not writable (ENOENT)',
    })
    await vault.deps.database.close()
    const both = await probe('/readyz')
    expect(both.status).toBe(503)
    expect(both.text.split('\n')).toEqual([
      expect.stringMatching(/^not ready: database: check failed \(/),
      'not ready: storage: storage directory is not writable (ENOENT)',
    ])
    expect(await probe('/livez')).toMatchObject({ status: 200, text: 'ok' })
  })

  it('readiness ignores what is not required: an unusable backup directory', async () => {
    vault = await createTestVault()
    await removeDataFolder(vault, 'backups')
    expect(await probe('/readyz')).toMatchObject({ status: 200, text: 'ok' })
  })
})
