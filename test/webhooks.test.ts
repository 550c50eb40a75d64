import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { deliverDue } from '../src/core/events/deliver-due.js'
import { publishEvent } from '../src/core/events/publish-event.js'
import { startWebhookDeliverer } from '../src/core/events/webhook-deliverer.js'
import {
  admin,
  adminEnv,
  call,
  createApiKeyAs,
  expectProblem,
  newAccount,
  type Reply,
  signIn,
} from './support/accounts.js'
import { shiftedClock } from './support/shifted-clock.js'
import { createTestVault, type InProcessVault, startTestVault, type TestVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { upload } from './support/uploads.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

/**
 * Webhooks end to end: registered through the API, fed by published events, delivered by the
 * deliverer's pass (called here directly, on a clock the test moves) to a real HTTP receiver on
 * loopback, with a second process on the same database claiming deliveries beside the first.
 */
const clock = shiftedClock()
let vault: TestVault
let replica: InProcessVault
let receiver: WebhookReceiver
let token: string

beforeAll(async () => {
  vault = await startTestVault(adminEnv, { clock })
  replica = await createTestVault(adminEnv, { shareWith: vault, clock })
  receiver = await startWebhookReceiver()
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => {
  await receiver?.close()
  await replica?.close()
  await vault?.close()
})
beforeEach(async () => {
  // Each test starts with no webhook and nothing queued.
  await vault.deps.database.db.deleteFrom('webhooks').execute()
  receiver.requests.length = 0
})

const register = async (json: Record<string, unknown>, as = token) => {
  const reply = await call(vault.baseUrl, 'POST', '/api/v1/webhooks', {
    token: as,
    json: { name: 'Receiver', url: `${receiver.url}/hook`, format: 'generic', event_types: ['printer.error'], ...json },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body
}
const printerError = (deps = vault.deps, name = 'Voron') =>
  publishEvent(deps, {
    type: 'printer.error',
    subject: 'printer:p1',
    data: { printer_id: 'p1', printer_name: name, reason: 'thermal runaway' },
  })
const log = async (id: string): Promise<Reply> =>
  call(vault.baseUrl, 'GET', `/api/v1/webhooks/${id}/deliveries`, { token })

describe('webhooks', () => {
  it('signs a generic delivery with HMAC-SHA256 of the timestamp and the body, as the docs tell receivers to check', async () => {
    const webhook = await register({})
    expect(webhook).toMatchObject({ format: 'generic', signed: true, enabled: true, secret: expect.any(String) })
    await printerError()
    expect(await deliverDue(vault.deps)).toBe(1)

    expect(receiver.requests).toHaveLength(1)
    const [request] = receiver.requests
    expect(request).toMatchObject({ method: 'POST', path: '/hook' })
    expect(request?.headers['content-type']).toBe('application/json')
    expect(request?.headers['x-vault-event']).toBe('printer.error')
    const timestamp = String(request?.headers['x-vault-timestamp'])
    expect(Math.abs(Number(timestamp) - clock.now().getTime() / 1000)).toBeLessThan(5)
    const expected = createHmac('sha256', webhook.secret).update(`${timestamp}.${request?.body}`).digest('hex')
    expect(request?.headers['x-vault-signature']).toBe(`sha256=${expected}`)
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      id: expect.any(Number),
      type: 'printer.error',
      subject: 'printer:p1',
      created_at: expect.any(String),
      data: { printer_name: 'Voron', reason: 'thermal runaway' },
    })
    const entries = (await log(webhook.id)).body.items
    expect(entries).toMatchObject([{ status: 'delivered', attempts: 1, response_code: 200, error: null }])

    // The secret is shown once: never listed again.
    const listed = await call(vault.baseUrl, 'GET', '/api/v1/webhooks', { token })
    expect(listed.body.items).toHaveLength(1)
    expect(listed.body.items[0]).not.toHaveProperty('secret')
    expect(JSON.stringify(listed.body)).not.toContain(webhook.secret)
  })

  it('retries after a failure once its back-off has passed, then logs the success', async () => {
    const webhook = await register({})
    receiver.answerWith(500)
    await printerError()
    expect(await deliverDue(vault.deps)).toBe(1)
    const failed = (await log(webhook.id)).body.items[0]
    expect(failed).toMatchObject({
      status: 'pending',
      attempts: 1,
      response_code: 500,
      error: 'the receiver answered 500',
    })
    // Not due again before its back-off.
    expect(await deliverDue(vault.deps)).toBe(0)
    clock.advance(Date.parse(failed.next_attempt_at) - clock.now().getTime() + 1)
    expect(await deliverDue(vault.deps)).toBe(1)
    expect((await log(webhook.id)).body.items[0]).toMatchObject({
      status: 'delivered',
      attempts: 2,
      response_code: 200,
      error: null,
      next_attempt_at: null,
    })
    expect(receiver.requests).toHaveLength(2)
    expect(receiver.requests[1]?.body).toBe(receiver.requests[0]?.body)
  })

  it('sends ntfy a titled, tagged text notification, with names in any script', async () => {
    await register({ format: 'ntfy', url: `${receiver.url}/printers`, event_types: ['printer.error'] })
    await printerError(vault.deps, 'Prusa Ünïcode')
    await deliverDue(vault.deps)
    const [request] = receiver.requests
    expect(request?.path).toBe('/printers')
    expect(request?.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(request?.headers.priority).toBe('4')
    expect(request?.headers.tags).toBe('warning')
    const title = String(request?.headers.title)
    const encoded = /^=\?UTF-8\?B\?(.+)\?=$/.exec(title)?.[1]
    expect(Buffer.from(encoded ?? '', 'base64').toString('utf8')).toBe('Prusa Ünïcode: error')
    expect(request?.body).toBe('Prusa Ünïcode reports an error (thermal runaway).')
    expect(request?.headers).not.toHaveProperty('x-vault-signature')
  })

  it('tells of a print job by its model and printer, for a person reading it on a phone', async () => {
    await register({ format: 'ntfy', url: `${receiver.url}/farm`, event_types: ['job.queued'] })
    const stored = await upload(vault.baseUrl, token, 'wall-clip.gcode', '; generated by PrusaSlicer 2.8.1\nG28\n')
    expect(stored.status).toBe(201)
    const queued = await call(vault.baseUrl, 'POST', '/api/v1/queue', {
      token,
      json: { file_ids: [stored.body.file.id], copies: 2 },
    })
    expect(queued.status, JSON.stringify(queued.body)).toBe(201)
    await deliverDue(vault.deps)
    const [request] = receiver.requests
    expect(request?.headers).toMatchObject({ title: 'wall-clip: queued', tags: 'inbox_tray', priority: '3' })
    expect(request?.body).toBe('wall-clip is in the print queue: 2 copies.')
    await call(vault.baseUrl, 'POST', `/api/v1/queue/${queued.body.id}/cancel`, { token })
  })

  it('sends Discord a message with an embed', async () => {
    await register({ format: 'discord', event_types: ['printer.error'] })
    await printerError()
    await deliverDue(vault.deps)
    const body = JSON.parse(receiver.requests[0]?.body ?? '')
    expect(body).toEqual({
      content: 'Voron: error',
      embeds: [
        {
          title: 'Voron: error',
          description: 'Voron reports an error (thermal runaway).',
          color: 0xed4245,
          timestamp: expect.any(String),
          footer: { text: 'printer.error' },
        },
      ],
    })
  })

  it('sends each event once to the webhooks that want its type, however many processes deliver', async () => {
    const wanting = await register({ event_types: ['printer.error', 'printer.bed_cleared'] })
    const other = await register({ event_types: ['dispatch.failed'] })
    const disabled = await register({ enabled: false })
    for (let n = 0; n < 6; n++) await printerError(n % 2 === 0 ? vault.deps : replica.deps, `printer-${n}`)
    // Both processes pass over the queue, as two replicas' deliverers do: at once on PostgreSQL. Two
    // SQLite connections in one thread cannot write at once (the second's busy wait blocks the
    // thread the first needs to commit), so there they take turns, as separate processes would.
    const pass = (deps: InProcessVault['deps']) => () => deliverDue(deps, { limit: 3 })
    const order = [pass(vault.deps), pass(replica.deps), pass(vault.deps), pass(replica.deps)]
    const passes =
      vault.deps.database.kind === 'postgres'
        ? await Promise.all(order.map((run) => run()))
        : await order.reduce<Promise<number[]>>(
            async (done, run) => [...(await done), await run()],
            Promise.resolve([]),
          )
    expect(passes.reduce((sum, n) => sum + n, 0)).toBe(6)
    const names = receiver.requests.map((request) => JSON.parse(request.body).data.printer_name).sort()
    expect(names).toEqual(['printer-0', 'printer-1', 'printer-2', 'printer-3', 'printer-4', 'printer-5'])
    expect((await log(wanting.id)).body.items).toHaveLength(6)
    expect((await log(other.id)).body.items).toEqual([])
    expect((await log(disabled.id)).body.items).toEqual([])
  })

  it('is delivered in the background as soon as this process publishes, by the deliverer the Node entry runs', async () => {
    await register({})
    // An interval far beyond the test: only the wake-up of the publish can deliver in time.
    const deliverer = startWebhookDeliverer(vault.deps, { intervalMs: 600_000 })
    try {
      await printerError()
      await until(() => receiver.requests.length === 1, 'the event was delivered')
    } finally {
      await deliverer.stop()
    }
  })

  it('sends a test event on demand and answers how it went, failures included', async () => {
    const webhook = await register({ format: 'ntfy', enabled: false })
    const ok = await call(vault.baseUrl, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { token })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({
      event_type: 'webhook.test',
      event_id: null,
      status: 'delivered',
      response_code: 200,
    })
    expect(receiver.requests[0]?.body).toBe('This webhook works: the vault reached it.')

    receiver.answerWith(503)
    const refused = await call(vault.baseUrl, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { token })
    expect(refused.body).toMatchObject({ status: 'failed', attempts: 1, response_code: 503, next_attempt_at: null })

    const gone = await startWebhookReceiver()
    await gone.close()
    const closedPort = await call(vault.baseUrl, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
      token,
      json: { url: `${gone.url}/nothing-listens-here` },
    })
    expect(closedPort.status).toBe(200)
    const unreachable = await call(vault.baseUrl, 'POST', `/api/v1/webhooks/${webhook.id}/test`, { token })
    expect(unreachable.body).toMatchObject({ status: 'failed', response_code: null, error: 'ECONNREFUSED' })
    expect((await log(webhook.id)).body.items.map((entry: { status: string }) => entry.status)).toEqual([
      'failed',
      'failed',
      'delivered',
    ])
  })

  it("changes, disables and deletes a webhook, and never shows or touches another user's", async () => {
    const webhook = await register({ format: 'ntfy' })
    expect(webhook.secret).toBeNull()
    const changed = await call(vault.baseUrl, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
      token,
      json: { name: 'Signed now', format: 'generic', enabled: false },
    })
    expect(changed.body).toMatchObject({ name: 'Signed now', format: 'generic', signed: true, enabled: false })
    expect(changed.body.secret).toEqual(expect.any(String))
    // What a change leaves out stays as it was.
    const renamed = await call(vault.baseUrl, 'PATCH', `/api/v1/webhooks/${webhook.id}`, {
      token,
      json: { name: 'Renamed' },
    })
    expect(renamed.body).toMatchObject({ name: 'Renamed', format: 'generic', enabled: false })
    expect(renamed.body).not.toHaveProperty('secret')
    expect((await call(vault.baseUrl, 'GET', `/api/v1/webhooks/${webhook.id}`, { token })).body).not.toHaveProperty(
      'secret',
    )

    const stranger = await newAccount(vault.baseUrl, token)
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/${webhook.id}`],
      ['PATCH', `/api/v1/webhooks/${webhook.id}`],
      ['DELETE', `/api/v1/webhooks/${webhook.id}`],
      ['POST', `/api/v1/webhooks/${webhook.id}/test`],
      ['GET', `/api/v1/webhooks/${webhook.id}/deliveries`],
    ] as const) {
      const reply = await call(vault.baseUrl, method, path, {
        token: stranger.token,
        ...(method === 'PATCH' ? { json: { name: 'mine now' } } : {}),
      })
      expectProblem(reply, 404, 'not_found')
    }
    expect((await call(vault.baseUrl, 'GET', '/api/v1/webhooks', { token: stranger.token })).body.items).toEqual([])

    // A disabled account's webhooks fall silent.
    const theirs = await register({ event_types: ['printer.error'] }, stranger.token)
    const disabled = await call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${stranger.user.id}`, {
      token,
      json: { disabled: true },
    })
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200)
    await printerError()
    await deliverDue(vault.deps)
    expect(
      await vault.deps.database.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', theirs.id)
        .execute(),
    ).toEqual([])

    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/webhooks/${webhook.id}`, { token })).status).toBe(204)
    expectProblem(await call(vault.baseUrl, 'GET', `/api/v1/webhooks/${webhook.id}`, { token }), 404, 'not_found')
  })

  it('refuses bad and hostile input with a problem, storing nothing', async () => {
    const valid = { name: 'x', url: `${receiver.url}/hook`, format: 'generic', event_types: ['printer.error'] }
    const refusals: Record<string, unknown>[] = [
      { url: 'ftp://127.0.0.1/hook' },
      { url: 'javascript:alert(1)' },
      { url: 'file:///etc/passwd' },
      { url: 'not a url' },
      { url: 'http://user:password@127.0.0.1/hook' },
      { url: `http://${'a'.repeat(2001)}.example` },
      { url: 42 },
      { format: 'slack' },
      { event_types: [] },
      { event_types: ['printer.exploded'] },
      { event_types: 'printer.error' },
      { name: '' },
      { name: 'n'.repeat(101) },
      { name: 'bad\u0000name' },
      { enabled: 'yes' },
      { secret: 'my-own' },
    ]
    for (const change of refusals) {
      const reply = await call(vault.baseUrl, 'POST', '/api/v1/webhooks', { token, json: { ...valid, ...change } })
      expect(reply.status, JSON.stringify(change)).toBeGreaterThanOrEqual(400)
      expect(reply.status, JSON.stringify(change)).toBeLessThan(500)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
    }
    expectProblem(
      await call(vault.baseUrl, 'POST', '/api/v1/webhooks', {
        token,
        body: '{"name":',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_json',
    )
    const webhook = await register({})
    expectProblem(
      await call(vault.baseUrl, 'PATCH', `/api/v1/webhooks/${webhook.id}`, { token, json: { url: 'gopher://x' } }),
      422,
      'validation_failed',
    )
    expectProblem(
      await call(vault.baseUrl, 'GET', `/api/v1/webhooks/${webhook.id}/deliveries?limit=0`, { token }),
      422,
      'validation_failed',
    )
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/webhooks/%00', { token }), 422, 'validation_failed')
    expect((await call(vault.baseUrl, 'GET', '/api/v1/webhooks', { token })).body.items).toHaveLength(1)
  })

  it('needs a credential, and from an API key the manage scope', async () => {
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/webhooks'), 401, 'missing_token')
    const readOnly = await createApiKeyAs(vault.baseUrl, token, undefined, ['read'])
    expectProblem(
      await call(vault.baseUrl, 'GET', '/api/v1/webhooks', { headers: { 'X-Api-Key': readOnly.key } }),
      403,
      'insufficient_scope',
    )
    const manage = await createApiKeyAs(vault.baseUrl, token, undefined, ['manage'])
    expect(
      (await call(vault.baseUrl, 'GET', '/api/v1/webhooks', { headers: { 'X-Api-Key': manage.key } })).status,
    ).toBe(200)
  })
})
