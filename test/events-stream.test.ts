import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fakeMoonraker } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { createApp } from '../src/app.js'
import { createEventLogPoll } from '../src/core/events/event-log-poll.js'
import { createEventSignal } from '../src/core/events/event-signal.js'
import { eventRetention, pruneEvents } from '../src/core/events/prune-events.js'
import { publishEvent } from '../src/core/events/publish-event.js'
import { startPrinterWatch } from '../src/core/printers/printer-watch.js'
import { getPrinterRow, observePrinter } from '../src/core/printers/printers.js'
import { admin, adminEnv, call, expectProblem, inProcessAuthorization, newAccount, signIn } from './support/accounts.js'
import { openEventStream } from './support/event-stream.js'
import { shiftedClock } from './support/shifted-clock.js'
import { createTestVault, type InProcessVault, startTestVault, type TestVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { upload } from './support/uploads.js'

/**
 * The live event stream over a real loopback server: what it carries, in which order, how a
 * client resumes it, and that a second process on the same database feeds it too.
 */
const clock = shiftedClock()
let vault: TestVault
let replica: InProcessVault
let token: string
let gcodeId: string

beforeAll(async () => {
  vault = await startTestVault(
    { ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '0', VAULT_PRINTER_CONFIRM_MS: '2000' },
    { clock },
  )
  replica = await createTestVault(adminEnv, { shareWith: vault, clock })
  // Printers are registered by admins.
  token = (await signIn(vault.baseUrl, admin)).access_token
  const gcode = '; a tiny job\nG28\nG1 X10 Y10 F3000\n'
  gcodeId = (await upload(vault.baseUrl, token, 'tiny.gcode', gcode)).body.file.id
})
afterAll(async () => {
  await replica?.close()
  await vault?.close()
})

const note = (deps: InProcessVault['deps'], label: string) =>
  publishEvent(deps, { type: 'printer.bed_cleared', subject: `printer:${label}`, data: { printer_name: label } })

describe('the event stream', () => {
  it('refuses a caller without a credential, and a resume point that is not an event id', async () => {
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/events'), 401, 'missing_token')
    for (const bad of ['abc', '-1', '1e5', '1.5', '7;drop', '9'.repeat(16)]) {
      const header = await call(vault.baseUrl, 'GET', '/api/v1/events', { token, headers: { 'Last-Event-ID': bad } })
      expectProblem(header, 422, 'validation_failed')
      const query = await call(vault.baseUrl, 'GET', `/api/v1/events?last_event_id=${encodeURIComponent(bad)}`, {
        token,
      })
      expectProblem(query, 422, 'validation_failed')
    }
  })

  it("carries a printer's state changes and a send's outcome in the order they happened", async () => {
    const stream = await openEventStream(vault.baseUrl, { token })
    try {
      expect(stream.status).toBe(200)
      expect(stream.headers.get('content-type')).toBe('text/event-stream')
      expect(stream.headers.get('x-accel-buffering')).toBe('no')
      await until(() => stream.comments.includes('connected'), 'the stream opened')

      const registered = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
        token,
        json: {
          name: 'Bench',
          provider: 'virtual',
          address: 'virtual://bench?heat_seconds=0&print_seconds=0.8',
          require_bed_clear: true,
        },
      })
      expect(registered.status, JSON.stringify(registered.body)).toBe(201)
      const printerId = registered.body.id as string
      const sent = await call(vault.baseUrl, 'POST', `/api/v1/printers/${printerId}/send`, {
        token,
        json: { file_id: gcodeId, start: true },
      })
      expect(sent.status, JSON.stringify(sent.body)).toBe(201)
      clock.advance(900)
      expect((await call(vault.baseUrl, 'GET', `/api/v1/printers/${printerId}`, { token })).body.status.state).toBe(
        'idle',
      )
      // Read again: an unchanged state publishes nothing.
      await call(vault.baseUrl, 'GET', `/api/v1/printers/${printerId}`, { token })
      expect((await call(vault.baseUrl, 'POST', `/api/v1/printers/${printerId}/bed-cleared`, { token })).status).toBe(
        200,
      )

      const events = await stream.received(6)
      expect(events.map((event) => event.event)).toEqual([
        'printer.state_changed',
        'printer.state_changed',
        'dispatch.started',
        'printer.state_changed',
        'printer.bed_needs_clearing',
        'printer.bed_cleared',
      ])
      expect(events.map((event) => event.data.data)).toMatchObject([
        { printer_id: printerId, printer_name: 'Bench', previous_state: null, state: 'idle' },
        { previous_state: 'idle', state: 'printing' },
        { printer_id: printerId, file_id: gcodeId, file_name: 'tiny.gcode', outcome: 'confirmed' },
        { previous_state: 'printing', state: 'idle', ready: false },
        { printer_id: printerId },
        { printer_id: printerId },
      ])
      const ids = events.map((event) => Number(event.id))
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      expect(new Set(ids).size).toBe(6)
      for (const event of events) expect(event.data).toMatchObject({ id: Number(event.id), type: event.event })
      expect(events[0]?.data.subject).toBe(`printer:${printerId}`)
    } finally {
      stream.close()
    }
  })

  it('sees a printer change with no page open, through the background watch', async () => {
    const registered = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'Unwatched', provider: 'virtual', address: 'virtual://unwatched?heat_seconds=0&print_seconds=0.5' },
    })
    const printerId = registered.body.id as string
    expect(
      (
        await call(vault.baseUrl, 'POST', `/api/v1/printers/${printerId}/send`, {
          token,
          json: { file_id: gcodeId, start: true },
        })
      ).status,
    ).toBe(201)
    const stream = await openEventStream(vault.baseUrl, { token })
    const watch = startPrinterWatch(vault.deps, { intervalMs: 20 })
    try {
      await until(() => stream.comments.includes('connected'), 'the stream opened')
      // The job ends while nobody reads the printer's status.
      clock.advance(600)
      const [finished] = await stream.received(1)
      expect(finished).toMatchObject({
        event: 'printer.state_changed',
        data: { data: { printer_id: printerId, previous_state: 'printing', state: 'idle' } },
      })
    } finally {
      await watch.stop()
      stream.close()
    }
  })

  it('publishes a change once, however many processes see it', async () => {
    const moonraker = await fakeMoonraker()
    try {
      const registered = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
        token,
        json: { name: 'Shared Voron', provider: 'moonraker', address: moonraker.url },
      })
      const printerId = registered.body.id as string
      moonraker.state.printing = 'from_the_screen.gcode'
      // Both read the row before either saw the change, as two replicas polling at once do.
      const row = await getPrinterRow(vault.deps, printerId)
      const observers = [vault.deps, replica.deps, vault.deps].map((deps) => () => observePrinter(deps, row))
      // At once on PostgreSQL; two SQLite connections in one thread cannot write at once, so in turn there.
      if (vault.deps.database.kind === 'postgres') await Promise.all(observers.map((observe) => observe()))
      else for (const observe of observers) await observe()
      const changes = await vault.deps.database.db
        .selectFrom('events')
        .select('data')
        .where('subject', '=', `printer:${printerId}`)
        .where('type', '=', 'printer.state_changed')
        .orderBy('id')
        .execute()
      expect(changes.map((change) => JSON.parse(change.data).state)).toEqual(['idle', 'printing'])
    } finally {
      await moonraker.close()
    }
  })

  it('resumes after the id in Last-Event-ID, or in last_event_id where the header cannot be sent', async () => {
    const live = await openEventStream(vault.baseUrl, { token })
    await until(() => live.comments.includes('connected'), 'the stream opened')
    for (const label of ['one', 'two', 'three']) await note(vault.deps, label)
    const [first, second, third] = await live.received(3)
    live.close()

    const byHeader = await openEventStream(vault.baseUrl, { token, headers: { 'Last-Event-ID': String(first?.id) } })
    const byQuery = await openEventStream(vault.baseUrl, { token, query: `?last_event_id=${second?.id}` })
    // The header wins over the query.
    const both = await openEventStream(vault.baseUrl, {
      token,
      headers: { 'Last-Event-ID': String(second?.id) },
      query: `?last_event_id=${first?.id}`,
    })
    try {
      expect((await byHeader.received(2)).map((event) => event.id)).toEqual([second?.id, third?.id])
      expect((await byQuery.received(1)).map((event) => event.id)).toEqual([third?.id])
      expect((await both.received(1)).map((event) => event.id)).toEqual([third?.id])
      // And then the live ones.
      await note(vault.deps, 'four')
      const [, , fourth] = await byHeader.received(3)
      expect(fourth?.data.data).toEqual({ printer_name: 'four' })
      expect(byHeader.events).toHaveLength(3)
    } finally {
      for (const stream of [byHeader, byQuery, both]) stream.close()
    }
  })

  it("brings another process's events, read from the shared database", async () => {
    const stream = await openEventStream(vault.baseUrl, { token })
    try {
      await until(() => stream.comments.includes('connected'), 'the stream opened')
      await note(replica.deps, 'from-the-replica')
      await note(vault.deps, 'from-here')
      const events = await stream.received(2)
      expect(events.map((event) => event.data.subject)).toEqual(['printer:from-the-replica', 'printer:from-here'])
    } finally {
      stream.close()
    }
  })

  it('says so when it resumes after events no longer kept, then goes on', async () => {
    await note(vault.deps, 'old')
    const { db } = vault.deps.database
    const newest = await db.selectFrom('events').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()
    await note(vault.deps, 'kept')
    // As pruning leaves it: everything up to the newest of these gone.
    await db.deleteFrom('events').where('id', '<=', newest.id).execute()
    const stream = await openEventStream(vault.baseUrl, { token, headers: { 'Last-Event-ID': '1' } })
    try {
      const [missed, kept] = await stream.received(2)
      expect(missed).toMatchObject({ event: 'events.missed', data: { after: 1, first_kept: Number(newest.id) + 1 } })
      expect(kept?.data.subject).toBe('printer:kept')
    } finally {
      stream.close()
    }
  })

  it('says so when it resumes after an id the log no longer reaches (a restored backup numbers from its own), then goes on', async () => {
    await note(vault.deps, 'before-the-restore')
    const { db } = vault.deps.database
    const newest = await db.selectFrom('events').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()
    const beyond = Number(newest.id) + 1_000
    const stream = await openEventStream(vault.baseUrl, { token, headers: { 'Last-Event-ID': String(beyond) } })
    try {
      const [missed] = await stream.received(1)
      expect(missed).toMatchObject({ event: 'events.missed', data: { after: beyond, replaced: true } })
      await note(vault.deps, 'after-the-restore')
      const [, next] = await stream.received(2)
      expect(next?.data.subject).toBe('printer:after-the-restore')
    } finally {
      stream.close()
    }
  })

  it('writes a comment when nothing has happened for 15 s, so proxies keep the stream open', async () => {
    const stream = await openEventStream(vault.baseUrl, { token })
    try {
      await until(() => stream.comments.includes('connected'), 'the stream opened')
      expect(stream.comments).not.toContain('keep-alive')
      clock.advance(15_000)
      await until(() => stream.comments.includes('keep-alive'), 'a heartbeat arrived')
      expect(stream.events).toEqual([])
    } finally {
      stream.close()
    }
  })

  it('keeps a week of events, and the newest 10,000 of them', async () => {
    const { db } = vault.deps.database
    const now = clock.now()
    const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * 86_400_000).toISOString()
    await db.deleteFrom('events').execute()
    const row = (n: number, createdAt: string) => ({
      type: 'printer.bed_cleared',
      subject: `printer:${n}`,
      data: '{}',
      created_at: createdAt,
    })
    await db
      .insertInto('events')
      .values([row(0, at(8)), row(1, at(6))])
      .execute()
    for (let start = 2; start < 10_003; start += 1_000)
      await db
        .insertInto('events')
        .values(Array.from({ length: Math.min(1_000, 10_003 - start) }, (_, k) => row(start + k, at(1))))
        .execute()
    await pruneEvents(vault.deps)
    const kept = await db.selectFrom('events').select('subject').orderBy('id').execute()
    expect(kept).toHaveLength(eventRetention.maxCount)
    expect(kept[0]?.subject).toBe('printer:3')
    expect(kept.at(-1)?.subject).toBe('printer:10002')

    // Ids go on from the newest ever given, even once every event is gone.
    const newest = await db.selectFrom('events').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()
    await db.deleteFrom('events').execute()
    await note(vault.deps, 'after-pruning')
    const next = await db.selectFrom('events').select('id').executeTakeFirstOrThrow()
    expect(Number(next.id)).toBeGreaterThan(Number(newest.id))
  })

  it('ends once its credential is no longer valid, and a reconnect with a fresh one resumes where it stopped', async () => {
    const account = await newAccount(vault.baseUrl, token)
    const stream = await openEventStream(vault.baseUrl, { token: account.token })
    await note(vault.deps, 'before-the-end')
    const [seen] = await stream.received(1)
    // The user signs out: the session ends, and with it the stream, at its next check.
    expect((await call(vault.baseUrl, 'POST', '/api/v1/auth/logout', { token: account.token })).status).toBe(204)
    clock.advance(15_000)
    await stream.ended
    await note(vault.deps, 'while-away')
    const again = await openEventStream(vault.baseUrl, {
      token: (await signIn(vault.baseUrl, { username: account.username, password: account.password })).access_token,
      headers: { 'Last-Event-ID': String(seen?.id) },
    })
    try {
      const [missed] = await again.received(1)
      expect(missed?.data.subject).toBe('printer:while-away')
    } finally {
      again.close()
    }
  })

  it('ends when the client goes away', async () => {
    const closedBefore = vault.logs.filter((line) => line.msg === 'event stream closed').length
    const stream = await openEventStream(vault.baseUrl, { token })
    await until(() => stream.comments.includes('connected'), 'the stream opened')
    stream.close()
    await until(
      () => vault.logs.filter((line) => line.msg === 'event stream closed').length > closedBefore,
      'the server ended the stream',
    )
  })

  it('twenty open streams read the event log once per interval between them, and all wake on what another process publishes', async () => {
    // Every statement on the events table this process's streams make, told apart by kind.
    const reads = { polls: 0, streams: 0 }
    const counter: KyselyPlugin = {
      transformQuery({ node }) {
        const text = JSON.stringify(node)
        if (node.kind === 'SelectQueryNode' && text.includes('"name":"events"')) {
          // The shared poll asks for the newest id alone; a stream opening asks for the oldest too.
          if (text.includes('"max"') && !text.includes('"min"')) reads.polls++
          else reads.streams++
        }
        return node
      },
      transformResult: async ({ result }) => result,
    }
    const database = Object.assign(Object.create(vault.deps.database), {
      db: vault.deps.database.db.withPlugin(counter),
    }) as typeof vault.deps.database
    const signal = createEventSignal()
    const app = createApp({
      ...vault.deps,
      database,
      events: {
        ...vault.deps.events,
        signal,
        logPoll: createEventLogPoll({ database, signal, intervalMs: 1_000 }),
      },
    })
    const authorization = await inProcessAuthorization({ app })
    const streams = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const abort = new AbortController()
        const answer = await app.request('/api/v1/events', {
          headers: { Authorization: authorization },
          signal: abort.signal,
        })
        expect(answer.status).toBe(200)
        const reader = (answer.body as ReadableStream<Uint8Array>).getReader()
        const decoder = new TextDecoder()
        let text = ''
        void (async () => {
          for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
            text += decoder.decode(chunk.value, { stream: true })
        })().catch(() => {})
        return {
          text: () => text,
          close: () => {
            abort.abort()
            void reader.cancel().catch(() => {})
          },
        }
      }),
    )
    try {
      await until(() => streams.every((stream) => stream.text().includes(': connected')), 'every stream opened')
      // Each stream reads as it opens and once more at the poll's first look; from then on only the poll reads.
      await until(() => reads.polls >= 2, 'the poll ran twice')
      const opened = { ...reads }
      await until(() => reads.polls >= opened.polls + 3, 'three more intervals passed')
      expect(reads.streams).toBe(opened.streams)
      expect(reads.polls).toBeLessThanOrEqual(opened.polls + 4)

      // Another process publishes: nothing in this process is told, but the next poll wakes every stream.
      await note(replica.deps, 'shared-poll')
      await until(
        () => streams.every((stream) => stream.text().includes('printer:shared-poll')),
        "every stream got the replica's event",
      )
    } finally {
      for (const stream of streams) stream.close()
    }
  })
})
