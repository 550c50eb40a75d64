import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, inProcessAuthorization } from './support/accounts.js'
import { createTestVault, type InProcessVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { asciiCube } from './support/uploads.js'

const token = 'metrics-scraper-token-0123456789abcdef'
let vault: InProcessVault
let plain: InProcessVault
let authorization: string
beforeAll(async () => {
  ;[vault, plain] = await Promise.all([
    createTestVault({ ...adminEnv, VAULT_METRICS_TOKEN: token }),
    createTestVault(adminEnv),
  ])
  authorization = await inProcessAuthorization(vault)
})
afterAll(async () => Promise.all([vault?.close(), plain?.close()]))

const scrape = async () => {
  const res = await vault.app.request('/metrics', { headers: { Authorization: `Bearer ${token}` } })
  expect(res.status).toBe(200)
  return res.text()
}

describe('GET /metrics', () => {
  it('does not exist unless VAULT_METRICS_TOKEN is set', async () => {
    const res = await plain.app.request('/metrics', { headers: { Authorization: `Bearer ${token}` } })
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
  })

  it('refuses a scrape without the token, or with another one (a session token included)', async () => {
    for (const [header, code] of [
      [undefined, 'missing_token'],
      [`Bearer ${token}x`, 'invalid_token'],
      [authorization, 'invalid_token'],
    ] as const) {
      const res = await vault.app.request('/metrics', { headers: header ? { Authorization: header } : {} })
      expect(res.status).toBe(401)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
      expect((await res.json()).code).toBe(code)
    }
  })

  it('counts requests by route pattern and status, with a latency histogram, in the Prometheus text format', async () => {
    await vault.app.request('/api/v1/health')
    await vault.app.request('/api/v1/models/no-such-model', { headers: { Authorization: authorization } })
    const res = await vault.app.request('/metrics', { headers: { Authorization: `Bearer ${token}` } })
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await res.text()
    expect(text).toContain('# TYPE vault_http_requests_total counter')
    expect(text).toMatch(/^vault_http_requests_total\{method="GET",route="\/api\/v1\/health",status="200"\} [1-9]\d*$/m)
    // The pattern, never the id: one series however many models there are.
    expect(text).toMatch(/^vault_http_requests_total\{method="GET",route="\/api\/v1\/models\/:id",status="404"\} 1$/m)
    expect(text).not.toContain('no-such-model')
    expect(text).toContain('# TYPE vault_http_request_duration_seconds histogram')
    expect(text).toMatch(
      /^vault_http_request_duration_seconds_bucket\{method="GET",route="\/api\/v1\/health",status="200",le="\+Inf"\} [1-9]/m,
    )
    expect(text).toMatch(
      /^vault_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} /m,
    )
  })

  it('counts uploads and their bytes', async () => {
    const before = await scrape()
    const count = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1])
    const cube = asciiCube(13)
    const form = new FormData()
    form.append('file', new Blob([cube]), 'cube.stl')
    const res = await vault.app.request('/api/v1/ingest', {
      method: 'POST',
      headers: { Authorization: authorization },
      body: form,
    })
    expect(res.status).toBe(201)
    const after = await scrape()
    expect(count(after, 'vault_uploads_total')).toBe(count(before, 'vault_uploads_total') + 1)
    expect(count(after, 'vault_upload_bytes_total')).toBe(
      count(before, 'vault_upload_bytes_total') + new TextEncoder().encode(cube).byteLength,
    )
  })

  it('reports printer states and the backup age and last outcome; a new install has no backup yet', async () => {
    const created = await vault.app.request('/api/v1/printers', {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bench "one"', provider: 'virtual', address: 'virtual://bench' }),
    })
    expect(created.status).toBe(201)
    const text = await scrape()
    expect(text).toContain('# TYPE vault_printer_state gauge')
    // A label value is escaped as the text format wants it.
    expect(text).toMatch(/^vault_printer_state\{printer="bench \\"one\\"",state="[a-z_]+"\} 1$/m)
    expect(text).toMatch(/^vault_backup_last_success_timestamp_seconds 0$/m)
    expect(text).toMatch(/^vault_backup_age_seconds \+Inf$/m)
    expect(text).toContain('# TYPE vault_backup_last_attempt gauge')
  })

  it('reports whether the database and the storage answer and how fast, and the ingest stages', async () => {
    const text = await scrape()
    for (const component of ['database', 'storage']) {
      expect(text).toMatch(new RegExp(`^vault_component_up\\{component="${component}"\\} 1$`, 'm'))
      const seconds = Number(
        new RegExp(`^vault_component_check_seconds\\{component="${component}"\\} (\\S+)$`, 'm').exec(text)?.[1],
      )
      expect(seconds).toBeGreaterThan(0)
      expect(seconds).toBeLessThan(3)
    }
    // Nothing is being uploaded while the scrape is answered.
    for (const stage of ['receiving', 'registering']) {
      expect(text).toMatch(new RegExp(`^vault_ingest_in_progress\\{stage="${stage}"\\} 0$`, 'm'))
      expect(text).toMatch(new RegExp(`^vault_ingest_queue_depth\\{stage="${stage}"\\} 0$`, 'm'))
    }
  })

  it('counts an upload whose body is still arriving as one being received', async () => {
    const bytes = new TextEncoder().encode(asciiCube(7))
    let send!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        send = controller
      },
    })
    send.enqueue(bytes.subarray(0, 10))
    const answer = vault.app.request('/api/v1/ingest/Slow.stl', {
      method: 'PUT',
      headers: { Authorization: authorization, 'Content-Length': String(bytes.byteLength) },
      body,
      duplex: 'half',
    } as RequestInit)
    const receiving = /^vault_ingest_in_progress\{stage="receiving"\} 1$/m
    await until(async () => receiving.test(await scrape()), 'the upload is counted as being received')
    send.enqueue(bytes.subarray(10))
    send.close()
    expect((await answer).status).toBe(201)
    expect(await scrape()).toMatch(/^vault_ingest_in_progress\{stage="receiving"\} 0$/m)
  })
})
