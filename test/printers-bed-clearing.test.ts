import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import type { FakePrinter } from '../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker, type MoonrakerBehaviour } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakePrusaLink } from '../src/adapters/printers/prusalink/prusalink.fake.js'
import { dispatchNext } from '../src/core/farm/dispatcher.js'
import { adminEnv, inProcessAuthorization } from './support/accounts.js'
import { callApi, postUpload } from './support/in-process-api.js'
import { type ShiftedClock, shiftedClock } from './support/shifted-clock.js'
import { createTestVault, type InProcessVault } from './support/test-vault.js'

/**
 * Bed clearing by script over fake Moonraker hosts on real sockets: the vault waits for the bed
 * to cool, runs the clearing macro, sees the printer idle, and only then sends the next job; a
 * failed script, a lost printer or a process stopped mid-script holds the printer instead.
 */
interface Job {
  id: string
  state: string
  wait_reason: string | null
}
interface FarmPrinter {
  printer_id: string
  held: boolean
  held_reason: string | null
  bed_clearing: Record<string, unknown>
  clearing: { state: string; bed_c: number | null; below_c: number; detail: string | null } | null
}
interface Problem {
  code: string
  detail: string
  errors?: { path: string; message: string }[]
}

const env = {
  ...adminEnv,
  VAULT_PRINTER_STATUS_TTL_MS: '0',
  VAULT_PRINTER_CONFIRM_MS: '2000',
  // The tests run the passes themselves.
  VAULT_QUEUE_INTERVAL_MS: '0',
}
let front: InProcessVault
let back: InProcessVault
let clock: ShiftedClock
const suite = { vault: undefined as unknown as InProcessVault, authorization: '' }
const fakes: { close(): Promise<void> }[] = []
let gcodeFile: string

const gcode = () => new TextEncoder().encode(`; a belt print ${crypto.randomUUID()}\nG1 Z0.2 F720\nG1 X10 Y10 E1\n`)

beforeAll(async () => {
  clock = shiftedClock()
  front = await createTestVault(env, { clock })
  back = await createTestVault(env, { shareWith: front, clock })
  suite.vault = front
  suite.authorization = await inProcessAuthorization(front)
  const answer = await postUpload<{ file: { id: string } }>(suite, 'belt-part.gcode', gcode())
  expect(answer.status).toBe(201)
  gcodeFile = answer.body.file.id
})
afterEach(async () => {
  for (const job of (await callApi<{ items: Job[] }>(suite, 'GET', '/api/v1/queue')).body.items)
    if (['queued', 'held'].includes(job.state)) await callApi(suite, 'POST', `/api/v1/queue/${job.id}/cancel`)
  for (const printer of (await callApi<{ items: { id: string }[] }>(suite, 'GET', '/api/v1/printers')).body.items)
    await callApi(suite, 'DELETE', `/api/v1/printers/${printer.id}`)
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
})
afterAll(async () => {
  await back?.close()
  await front?.close()
})

const ejectScript = { by: 'script', script: 'EJECT_PARTS', below_c: 35, timeout_s: 60 }

/** A Moonraker belt printer in its own group, clearing its bed by `EJECT_PARTS` below 35 °C. */
async function beltPrinter(name: string) {
  const fake: FakePrinter<MoonrakerBehaviour> = await fakeMoonraker()
  fakes.push(fake)
  fake.behaviour.macros = { EJECT_PARTS: { ms: 200 } }
  const created = await callApi<{ id: string }>(suite, 'POST', '/api/v1/printers', {
    name,
    provider: 'moonraker',
    address: fake.url,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const set = await callApi<FarmPrinter>(suite, 'PATCH', `/api/v1/farm/printers/${created.body.id}`, {
    groups: [name],
    bed_clearing: ejectScript,
  })
  expect(set.status, JSON.stringify(set.body)).toBe(200)
  expect(set.body.bed_clearing).toEqual(ejectScript)
  return {
    id: created.body.id,
    fake,
    /** What reached the printer, in order: starts and scripts. */
    calls: () =>
      fake.requests
        .filter((r) => r.path === '/printer/print/start' || r.path === '/printer/gcode/script')
        .map((r) => (r.path === '/printer/print/start' ? 'start' : 'script')),
  }
}
const queue = async (group: string) => {
  const answer = await callApi<Job>(suite, 'POST', '/api/v1/queue', {
    file_ids: [gcodeFile],
    target: { kind: 'group', group },
    // The file states no printer or filament: warnings the job accepts.
    accept_warnings: true,
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(201)
  return answer.body
}
const job = async (id: string) => (await callApi<Job>(suite, 'GET', `/api/v1/queue/${id}`)).body
const farm = async (id: string) =>
  (await callApi<{ items: FarmPrinter[] }>(suite, 'GET', '/api/v1/farm/printers')).body.items.find(
    (p) => p.printer_id === id,
  )
const printerEvents = async (id: string) =>
  (
    await front.deps.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('subject', '=', `printer:${id}`)
      .where('type', 'like', 'printer.bed_%')
      .orderBy('id')
      .execute()
  ).map((event): Record<string, unknown> => ({ ...(JSON.parse(event.data) as object), type: event.type }))
/** A pass, and the scripts it started run to their end. */
const pass = async (vault: InProcessVault = front) => {
  const done = await dispatchNext(vault.deps)
  await Promise.all(done.scripts.map((script) => script.settled))
  return done
}

/** A belt printer that printed one job of its group to its end, its bed at `bedC`, seen by a pass. */
async function afterOnePrint(name: string, bedC: number) {
  const belt = await beltPrinter(name)
  await queue(name)
  await pass()
  belt.fake.behaviour.jobState = 'complete'
  belt.fake.behaviour.bedC = bedC
  await pass()
  return belt
}

describe('bed clearing settings', () => {
  it('refuses scripts on printers that cannot run them, and hostile or out-of-range settings', async () => {
    const providers = (
      await callApi<{ items: { name: string; scripts: { runs: boolean; detail: string } }[] }>(
        suite,
        'GET',
        '/api/v1/printer-providers',
      )
    ).body.items
    expect(providers.find((p) => p.name === 'moonraker')?.scripts.runs).toBe(true)
    expect(providers.find((p) => p.name === 'prusalink')?.scripts).toMatchObject({ runs: false })

    const prusa = await fakePrusaLink()
    fakes.push(prusa)
    const mk4 = await callApi<{ id: string }>(suite, 'POST', '/api/v1/printers', {
      name: 'mk4-clearing',
      provider: 'prusalink',
      address: prusa.url,
      credentials: { username: 'maker', password: 'secret' },
    })
    expect(mk4.status, JSON.stringify(mk4.body)).toBe(201)
    const onPrusa = await callApi<Problem>(suite, 'PATCH', `/api/v1/farm/printers/${mk4.body.id}`, {
      bed_clearing: ejectScript,
    })
    expect(onPrusa.status).toBe(422)
    expect(onPrusa.body.detail).toContain('PrusaLink has no endpoint that runs G-code')
    expect(onPrusa.body.errors?.[0]?.path).toBe('body.bed_clearing.by')

    const belt = await beltPrinter('belt-settings')
    const refused = async (bed_clearing: unknown) => {
      const answer = await callApi<Problem>(suite, 'PATCH', `/api/v1/farm/printers/${belt.id}`, { bed_clearing })
      expect(answer.status, JSON.stringify(bed_clearing)).toBe(422)
      expect(answer.body.code).toBe('validation_failed')
    }
    await refused({ ...ejectScript, script: 'EJECT\u0000PARTS' })
    await refused({ ...ejectScript, script: 'EJECT_PARTS\u001b[2J' })
    await refused({ ...ejectScript, script: 'G1 X1\n'.repeat(1000) })
    await refused({ ...ejectScript, script: '   ' })
    await refused({ ...ejectScript, below_c: 500 })
    await refused({ ...ejectScript, below_c: -10 })
    await refused({ ...ejectScript, below_c: '35' })
    await refused({ ...ejectScript, timeout_s: 0 })
    await refused({ ...ejectScript, timeout_s: 1.5 })
    await refused({ by: 'robot' })
    await refused({ ...ejectScript, shell: 'rm -rf /' })
    // Lines and tabs are G-code; carriage returns are read as line ends. A person again: the script goes.
    const lines = await callApi<FarmPrinter>(suite, 'PATCH', `/api/v1/farm/printers/${belt.id}`, {
      bed_clearing: { by: 'script', script: 'G28\r\n\tEJECT_PARTS ; push it off', below_c: 30 },
    })
    expect(lines.status).toBe(200)
    expect(lines.body.bed_clearing).toEqual({
      by: 'script',
      script: 'G28\n\tEJECT_PARTS ; push it off',
      below_c: 30,
      timeout_s: 600,
    })
    const person = await callApi<FarmPrinter>(suite, 'PATCH', `/api/v1/farm/printers/${belt.id}`, {
      bed_clearing: { by: 'person' },
    })
    expect(person.body.bed_clearing).toEqual({ by: 'person' })
  })
})

describe('bed clearing by script', () => {
  it('sends the next job only once the bed cooled, the script ran and the printer was seen idle', async () => {
    const belt = await beltPrinter('belt-a')
    const first = await queue('belt-a')
    const second = await queue('belt-a')
    expect((await pass()).sent).toEqual([{ job_id: first.id, printer_id: belt.id }])

    // The print ends on a hot bed: the run waits for it to cool, and the second job waits for the run.
    belt.fake.behaviour.jobState = 'complete'
    belt.fake.behaviour.bedC = 58
    const ended = await pass()
    expect(ended.printed).toEqual([first.id])
    expect(ended.sent).toEqual([])
    expect((await job(second.id)).wait_reason).toBe(
      'no compatible printer ready: clearing the bed by script on 1 printer',
    )
    expect((await farm(belt.id))?.clearing).toMatchObject({ state: 'cooling', bed_c: 58, below_c: 35 })
    belt.fake.behaviour.bedC = 47
    expect((await pass()).sent).toEqual([])
    expect((await farm(belt.id))?.clearing).toMatchObject({ state: 'cooling', bed_c: 47 })
    expect(belt.calls()).toEqual(['start'])

    // Cooled: the macro runs (Klipper busy for 2 s); a pass meanwhile, by another process, sends nothing.
    belt.fake.behaviour.macros = { EJECT_PARTS: { ms: 2000 } }
    belt.fake.behaviour.bedC = 34
    const cooled = await dispatchNext(front.deps)
    expect(cooled.scripts).toHaveLength(1)
    expect(cooled.sent).toEqual([])
    expect((await dispatchNext(back.deps)).sent).toEqual([])
    await Promise.all(cooled.scripts.map((script) => script.settled))
    expect((await farm(belt.id))?.clearing?.state).toBe('ran')

    // A fresh status shows it idle: the bed counts as cleared by the script, and the second job goes.
    expect((await pass()).sent).toEqual([{ job_id: second.id, printer_id: belt.id }])
    expect(belt.calls()).toEqual(['start', 'script', 'start'])
    expect((await farm(belt.id))?.clearing?.state).toBe('cleared')
    const events = await printerEvents(belt.id)
    expect(events.map((e) => [e.type, e.phase ?? e.by ?? null])).toEqual([
      ['printer.bed_clearing', 'cooling'],
      ['printer.bed_clearing', 'running'],
      ['printer.bed_cleared', 'script'],
    ])
  })

  it('holds the printer when the script fails, the macro is unknown or Klipper is lost mid-script', async () => {
    const cases: [string, (fake: FakePrinter<MoonrakerBehaviour>) => void, string, number][] = [
      [
        'belt-jam',
        (fake) => (fake.behaviour.macros = { EJECT_PARTS: { error: 'Part stuck on the belt' } }),
        "the G-code script answered HTTP 400 (Error evaluating 'gcode_macro EJECT_PARTS:gcode': gcode.CommandError: Part stuck on the belt)",
        1,
      ],
      ['belt-unknown', (fake) => (fake.behaviour.macros = {}), 'Klipper has no command EJECT_PARTS', 0],
      ['belt-lost', (fake) => (fake.behaviour.lostMidScript = true), 'Klippy Disconnected', 1],
    ]
    for (const [name, breakIt, reason, scriptsSent] of cases) {
      const belt = await beltPrinter(name)
      const first = await queue(name)
      const next = await queue(name)
      await pass()
      belt.fake.behaviour.jobState = 'complete'
      belt.fake.behaviour.bedC = 25
      breakIt(belt.fake)
      await pass()
      await pass()
      const held = await farm(belt.id)
      expect(held?.held, name).toBe(true)
      expect(held?.held_reason).toContain(reason)
      expect(held?.clearing).toMatchObject({ state: 'failed' })
      expect(held?.clearing?.detail).toContain(reason)
      expect(belt.calls().filter((c) => c === 'script')).toHaveLength(scriptsSent)
      // The next job waits: the bed is not clear, and the printer is held.
      expect((await pass()).sent).toEqual([])
      expect(await job(next.id)).toMatchObject({ state: 'queued' })
      expect((await job(next.id)).wait_reason).toContain('held')
      expect((await job(first.id)).state).toBe('completed')
      const failed = (await printerEvents(belt.id)).filter((e) => e.type === 'printer.bed_clearing_failed')
      expect(failed).toHaveLength(1)
      expect(String(failed[0]?.reason)).toContain(reason)
    }
  })

  it('never runs a script twice: not by two dispatchers at once, nor after a process stopped mid-script', async () => {
    // Replicas share a PostgreSQL database; SQLite serves one process, whose passes race each other.
    const other = inject('databaseKind') === 'sqlite' ? front : back
    const belt = await beltPrinter('belt-race')
    const first = await queue('belt-race')
    await pass()
    belt.fake.behaviour.jobState = 'complete'
    belt.fake.behaviour.bedC = 20
    const passes = await Promise.all([dispatchNext(front.deps), dispatchNext(other.deps), dispatchNext(front.deps)])
    await Promise.all(passes.flatMap((p) => p.scripts.map((script) => script.settled)))
    await pass()
    expect(belt.calls()).toEqual(['start', 'script'])
    expect((await job(first.id)).state).toBe('completed')

    // A process took the next run to `running` and stopped before it settled it.
    const stopped = await afterOnePrint('belt-stopped', 20)
    expect((await farm(stopped.id))?.clearing?.state).toBe('ran')
    await front.deps.database.db
      .updateTable('bed_clearings')
      .set({
        state: 'running',
        lease_owner: 'stopped-process',
        lease_until: new Date(clock.now().getTime() + 60_000).toISOString(),
      })
      .where('printer_id', '=', stopped.id)
      .execute()
    const waiting = await queue('belt-stopped')
    // Until its lease lapses, nobody touches it.
    expect((await pass(back)).sent).toEqual([])
    expect((await farm(stopped.id))?.clearing?.state).toBe('running')
    clock.advance(61_000)
    await pass(back)
    const held = await farm(stopped.id)
    expect(held?.held).toBe(true)
    expect(held?.held_reason).toContain('the vault stopped while the clearing script ran')
    expect(stopped.calls()).toEqual(['start', 'script'])
    expect((await job(waiting.id)).state).toBe('queued')
  })

  it('a person confirming the bed while the script runs ends that run: the next print gets a run of its own', async () => {
    const belt = await beltPrinter('belt-person')
    await queue('belt-person')
    const second = await queue('belt-person')
    await pass()
    belt.fake.behaviour.jobState = 'complete'
    belt.fake.behaviour.bedC = 20
    belt.fake.behaviour.macros = { EJECT_PARTS: { ms: 1000 } }
    const ejecting = await dispatchNext(front.deps)
    expect(ejecting.scripts).toHaveLength(1)
    expect((await farm(belt.id))?.clearing?.state).toBe('running')
    // Someone took the parts off by hand while the belt still runs.
    expect((await callApi(suite, 'POST', `/api/v1/printers/${belt.id}/bed-cleared`)).status).toBe(200)
    await Promise.all(ejecting.scripts.map((script) => script.settled))
    expect((await farm(belt.id))?.clearing?.state).toBe('superseded')

    expect((await pass()).sent).toEqual([{ job_id: second.id, printer_id: belt.id }])
    belt.fake.behaviour.jobState = 'complete'
    await pass()
    await pass()
    expect(belt.calls()).toEqual(['start', 'script', 'start', 'script'])
    expect((await farm(belt.id))?.clearing?.state).toBe('cleared')
  })

  it('holds a printer whose bed is still warm an hour after the print, instead of waiting on it unseen', async () => {
    const belt = await afterOnePrint('belt-warm', 60)
    clock.advance(59 * 60_000)
    // An hour on, the suite's access token has expired: sign in again.
    suite.authorization = await inProcessAuthorization(front)
    await pass()
    expect(await farm(belt.id)).toMatchObject({ held: false, clearing: { state: 'cooling', bed_c: 60 } })
    clock.advance(2 * 60_000)
    await pass()
    const held = await farm(belt.id)
    expect(held).toMatchObject({ held: true, clearing: { state: 'failed' } })
    expect(held?.held_reason).toContain('the bed was still at 60 °C, not below 35 °C, 60 minutes after the print')
    expect(belt.calls()).toEqual(['start'])
  })

  it('holds a printer that does not show itself idle within the time the script has', async () => {
    const belt = await afterOnePrint('belt-slow', 20)
    expect((await farm(belt.id))?.clearing?.state).toBe('ran')
    // The printer goes on with something else (a macro that queued more moves): busy past the deadline.
    belt.fake.runCommand(60_000)
    await pass()
    expect((await farm(belt.id))?.clearing?.state).toBe('ran')
    clock.advance(61_000)
    await pass()
    const held = await farm(belt.id)
    expect(held?.held_reason).toContain('the printer was still busy 60 s after the script began')
    belt.fake.runCommand(0)
  })
})
