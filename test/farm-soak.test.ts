import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CommonBehaviour, FakePrinter } from '../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker, type MoonrakerBehaviour } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakeOctoPrint, type OctoPrintBehaviour } from '../src/adapters/printers/octoprint/octoprint.fake.js'
import { fakePrusaLink, type PrusaLinkBehaviour } from '../src/adapters/printers/prusalink/prusalink.fake.js'
import { admin, adminEnv, call, type Reply, signIn } from './support/accounts.js'
import { ensureBuilt, untilListening } from './support/built-vault.js'
import { type EventStreamClient, openEventStream, type ReceivedEvent } from './support/event-stream.js'
import { type PrusaModel, profileBundle, slicedGcode } from './support/prusa-fleet.js'
import { createTestDatabase, queryPostgres } from './support/test-database.js'
import { until } from './support/until.js'
import { upload } from './support/uploads.js'

/**
 * The print farm soaked: eight printers of three hosts (fake Moonraker, PrusaLink and OctoPrint
 * servers on real sockets, heating for random times, failing some prints, dropping their link and
 * answering slowly) fed 100 jobs of mixed targets and compatibility by two built vault processes on
 * one PostgreSQL database, each killed with SIGKILL at random moments and started again, while a
 * person clears beds and releases held printers through the API and an SSE client follows the
 * events across the kills. Every start a printer receives is checked as it arrives.
 *
 * PostgreSQL only (vitest.config.ts): two replicas dispatching at once over one database is the
 * subject, and an SQLite file belongs to one process. The Duet and Bambu fakes are left out: a
 * standalone Duet does not tell how a print ended (the queue cannot settle it), and Bambu's MQTT
 * over TLS is covered by its own tests. So is the virtual printer, whose machine lives in one
 * process's memory (each replica would have its own, and a killed one forgets its print).
 *
 * The run is seeded: `SOAK_SEED=<n>` replays a failure's choices (the seed is printed first).
 */
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))

/** mulberry32: a small seeded generator, so a failing run's choices can be made again. */
function seeded(start: number) {
  let state = start >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return {
    next,
    between: (low: number, high: number) => low + next() * (high - low),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  }
}
/** Separate streams of choices: the plan (fleet and jobs) stays the same whatever the timing does to the others. */
const plan = seeded(seed)
const chaosRng = seeded(seed + 1)
const worldRng = seeded(seed + 2)

type Filament = 'PLA' | 'PETG'
type Host = 'moonraker' | 'prusalink' | 'octoprint'
type Behaviour = MoonrakerBehaviour & PrusaLinkBehaviour & OctoPrintBehaviour

/** One print a printer received: its file, and how the printer will end it. */
interface Run {
  file: string | null
  at: number
  heatUntil: number
  endAt: number
  outcome: 'completed' | 'cancelled'
  ended: boolean
}

interface Member {
  name: string
  host: Host
  model: PrusaModel
  filament: Filament
  groups: string[]
  fake: FakePrinter<CommonBehaviour>
  id: string
  run: Run | null
  /** The person confirmed the bed clear since the last start. */
  bedClear: boolean
  /** The link is down until this time (ms since the epoch); 0 while it is up. */
  offlineUntil: number
  /** Every print it received, in order. */
  log: Run[]
}

/** A job as the test queued it, with its own files (so every start on a printer names its job). */
interface SoakJob {
  n: number
  id: string
  files: string[]
  model: PrusaModel
  filament: Filament
  copies: number
  target: { kind: 'any' } | { kind: 'group'; group: string } | { kind: 'printer'; printer_id: string }
  placeable: boolean
}

interface Replica {
  child: ChildProcessByStdio<null, Readable, Readable>
  baseUrl: string
  output: () => string
  exited: Promise<void>
}

const fleetPlan: Array<Pick<Member, 'name' | 'host' | 'model' | 'filament' | 'groups'>> = [
  { name: 'm0', host: 'moonraker', model: 'MK4S', filament: 'PLA', groups: ['left'] },
  { name: 'm1', host: 'moonraker', model: 'MK4S', filament: 'PETG', groups: ['right'] },
  { name: 'm2', host: 'moonraker', model: 'MINI', filament: 'PLA', groups: ['right'] },
  { name: 'p3', host: 'prusalink', model: 'MK4S', filament: 'PLA', groups: ['right'] },
  { name: 'p4', host: 'prusalink', model: 'MINI', filament: 'PETG', groups: ['left'] },
  { name: 'p5', host: 'prusalink', model: 'MK4S', filament: 'PLA', groups: ['left'] },
  { name: 'o6', host: 'octoprint', model: 'MK4S', filament: 'PETG', groups: ['left'] },
  { name: 'o7', host: 'octoprint', model: 'MINI', filament: 'PLA', groups: ['left'] },
]
const fits = (member: Member, job: Pick<SoakJob, 'model' | 'filament'>) =>
  member.model === job.model && member.filament === job.filament
const targets = (member: Member, job: SoakJob) =>
  job.target.kind === 'any' ||
  (job.target.kind === 'group' && member.groups.includes(job.target.group)) ||
  (job.target.kind === 'printer' && job.target.printer_id === member.id)

let root: string
let buildDir: string
let database: Awaited<ReturnType<typeof createTestDatabase>>
let token: string
const replicas: Array<Replica | null> = [null, null]
const fleet: Member[] = []
const jobs: SoakJob[] = []
/** Every start a printer received that it took, by the remote file name. */
const starts = new Map<string, Run[]>()
const violations: string[] = []
/** What each replica process wrote (JSON log lines), kept for a failing run's report. */
const serviceLogs: string[] = []
let kills = 0

const env = () => ({
  ...adminEnv,
  VAULT_DATA_DIR: join(root, 'data'),
  VAULT_DATABASE_URL: database.url,
  VAULT_LOG_LEVEL: 'info',
  VAULT_PRINTER_STATUS_TTL_MS: '0',
  VAULT_PRINTER_CONFIRM_MS: '3000',
  VAULT_PRINTER_TIMEOUT_MS: '1500',
  VAULT_PRINTER_WATCH_MS: '1000',
  VAULT_QUEUE_INTERVAL_MS: '250',
  VAULT_QUEUE_LEASE_MS: '2500',
})

async function startReplica(slot: number): Promise<void> {
  const child = spawn(process.execPath, [join(buildDir, 'src/adapters/node/main.js')], {
    env: { ...process.env, VAULT_PORT: '0', ...env() },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { baseUrl, output, exited } = await untilListening(child)
  replicas[slot] = { child, baseUrl, output, exited }
}

async function killReplica(slot: number): Promise<void> {
  const replica = replicas[slot]
  if (!replica) return
  replicas[slot] = null
  replica.child.kill('SIGKILL')
  await replica.exited
  serviceLogs.push(replica.output())
  kills++
}

const live = () => replicas.filter((replica): replica is Replica => replica !== null)

/** A request as a person's browser makes it: to whichever replica is up, again after a dropped connection. */
async function person(method: string, path: string, json?: unknown): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    const up = live()
    const replica = up[attempt % Math.max(up.length, 1)]
    try {
      if (replica) return await call(replica.baseUrl, method, path, { token, ...(json !== undefined ? { json } : {}) })
    } catch (error) {
      if (attempt > 200) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A printer's link going down or coming back, in its host's own words. */
function setLink(member: Member, up: boolean) {
  const behaviour = member.fake.behaviour as Behaviour
  if (member.host === 'moonraker') behaviour.klippy = up ? undefined : 'lost'
  if (member.host === 'prusalink') behaviour.status = up ? undefined : 503
  if (member.host === 'octoprint') behaviour.link = up ? undefined : 'Offline'
}

function endRun(member: Member, run: Run) {
  const behaviour = member.fake.behaviour as Behaviour
  behaviour.heating = undefined
  const completed = run.outcome === 'completed'
  if (member.host === 'moonraker') behaviour.jobState = completed ? 'complete' : 'cancelled'
  if (member.host === 'prusalink') behaviour.printer = completed ? 'FINISHED' : 'STOPPED'
  if (member.host === 'octoprint') behaviour.finished = true
  run.ended = true
}

/** The start command of each host, as its fake receives it; the file where the request names it. */
function startOf(member: Member, request: { method: string; path: string; query: URLSearchParams }) {
  if (request.method !== 'POST') return null
  if (member.host === 'moonraker' && request.path === '/printer/print/start')
    return { file: request.query.get('filename') }
  if (member.host === 'prusalink' && request.path.startsWith('/api/v1/files/usb/'))
    return { file: decodeURIComponent(request.path.slice('/api/v1/files/usb/'.length)) }
  // OctoPrint starts the selected file: the world reads which once the fake took it.
  if (member.host === 'octoprint' && request.path === '/api/job') return { file: null }
  return null
}

const fileJob = (file: string) => jobs.find((job) => job.files.includes(file))

function checkStart(member: Member, run: Run) {
  if (run.file === null) return
  const job = fileJob(run.file)
  if (!job) violations.push(`${member.name} started ${run.file}, no job's file`)
  else if (!fits(member, job))
    violations.push(
      `${member.name} (${member.model} ${member.filament}) got job ${job.n} (${job.model} ${job.filament})`,
    )
  else if (!targets(member, job)) violations.push(`${member.name} got job ${job.n}, which does not target it`)
  starts.set(run.file, [...(starts.get(run.file) ?? []), run])
}

/** Watches every request a printer gets: a start must find it idle, its bed cleared, and the file fitting. */
function watchStarts(member: Member) {
  member.fake.onRequest = (request) => {
    const start = startOf(member, request)
    if (!start) return
    // A start to a host whose link is down is refused there: it never reaches the printer.
    if (member.offlineUntil !== 0) return
    const last =
      member.run && `its last print: ${member.run.file}, ${member.run.outcome}${member.run.ended ? ', ended' : ''}`
    if (member.run && !member.run.ended) violations.push(`${member.name} got a start while printing (${last})`)
    else if (!member.bedClear)
      violations.push(`${member.name} got a start for ${start.file} before its bed was confirmed clear (${last})`)
    const now = Date.now()
    const heatMs = worldRng.between(30, 200)
    const run: Run = {
      file: start.file,
      at: now,
      heatUntil: now + heatMs,
      endAt: now + heatMs + worldRng.between(200, 800),
      outcome: worldRng.chance(member.host === 'octoprint' ? 0 : 0.1) ? 'cancelled' : 'completed',
      ended: false,
    }
    ;(member.fake.behaviour as Behaviour).heating = true
    member.run = run
    member.log.push(run)
    member.bedClear = false
    checkStart(member, run)
  }
}

/** The printers' own time: heating ends, prints end, links drop and come back, answers slow down. */
function world(member: Member, now: number) {
  const behaviour = member.fake.behaviour as Behaviour
  const run = member.run
  if (run && run.file === null && member.fake.state.printing) {
    run.file = member.fake.state.printing
    checkStart(member, run)
  }
  if (run && !run.ended && now >= run.heatUntil) behaviour.heating = undefined
  if (run && !run.ended && now >= run.endAt) endRun(member, run)
  if (member.offlineUntil !== 0 && now >= member.offlineUntil) {
    member.offlineUntil = 0
    setLink(member, true)
  } else if (member.offlineUntil === 0 && worldRng.chance(0.002)) {
    member.offlineUntil = now + worldRng.between(500, 2000)
    setLink(member, false)
  }
  if (worldRng.chance(0.01)) behaviour.slowStatusMs = worldRng.pick([0, 0, 150, 400])
}

interface FarmView {
  printer_id: string
  held: boolean
}
interface OpenJob {
  id: string
  state: string
  printer_id: string | null
  wait_reason: string | null
  last_error: string | null
  copies_done: number
  next_file: number
}

/**
 * A job held because a process stopped while sending it and its printer showed that file's print
 * ended: the person looks at the printer (the fake's record of what it printed) and counts the part
 * as printed if a good print of it is there that the vault has not counted, else lets it print again.
 */
async function checkHeldJob(job: OpenJob, soak: SoakJob): Promise<void> {
  const file = soak.files[job.next_file] ?? ''
  const good = (starts.get(file) ?? []).filter((run) => run.ended && run.outcome === 'completed').length
  const counted = job.copies_done
  const answer = await person('POST', `/api/v1/queue/${job.id}/${good > counted ? 'printed' : 'release'}`)
  // 409: another round (or the vault) moved the job on first.
  expect([200, 409]).toContain(answer.status)
}

/** One printer, by the person: a finished print taken off, a held printer looked at and released. */
async function tendMember(member: Member, open: OpenJob[], farm: FarmView[]): Promise<void> {
  if (member.run && !member.run.ended) return
  // The vault settles the print it sent first: until then the bed still counts as used.
  if (open.some((job) => job.printer_id === member.id && ['printing', 'dispatching'].includes(job.state))) return
  const held = farm.find((printer) => printer.printer_id === member.id)?.held
  if (held) expect((await person('POST', `/api/v1/farm/printers/${member.id}/release`)).status).toBe(200)
  // A held printer's bed is confirmed too: the vault may count a print on it the person already took off.
  if (!member.run?.ended && !held) return
  member.run = null
  member.bedClear = true
  // 409: a print began since the queue was read; the next round looks again.
  expect([200, 409]).toContain((await person('POST', `/api/v1/printers/${member.id}/bed-cleared`)).status)
}

/**
 * The person at the farm: takes finished prints off, looks at held printers, counts or frees held
 * jobs, and cancels what cannot print anywhere. They act on what the farm view shows, as a person
 * does, and only where the printer itself has stopped printing.
 */
async function personRound(): Promise<void> {
  const open = (await person('GET', '/api/v1/queue?limit=1000')).body?.items as OpenJob[] | undefined
  const farm = (await person('GET', '/api/v1/farm/printers')).body?.items as FarmView[] | undefined
  if (!open || !farm) return
  // Each printer looked at on its own, as the people of a farm do, not one after the other.
  await Promise.all(fleet.map((member) => tendMember(member, open, farm)))
  for (const job of open) {
    const soak = jobs.find((queued) => queued.id === job.id)
    if (!soak) continue
    if (job.state === 'held') await checkHeldJob(job, soak)
    if (job.state !== 'queued' || !job.wait_reason?.startsWith('no compatible printer:')) continue
    if (soak.placeable) violations.push(`job ${soak.n} fits a printer of its target but waits: ${job.wait_reason}`)
    await person('POST', `/api/v1/queue/${job.id}/cancel`)
  }
}

/** Follows the event stream on whichever replica is up, resuming with Last-Event-ID after each kill. */
function followEvents() {
  const received: ReceivedEvent[] = []
  let current: EventStreamClient | null = null
  let stopped = false
  const lastId = () => received.at(-1)?.id
  const loop = (async () => {
    while (!stopped) {
      const replica = live()[0]
      if (!replica) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        continue
      }
      const last = lastId()
      try {
        current = await openEventStream(replica.baseUrl, { token, headers: last ? { 'Last-Event-ID': last } : {} })
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50))
        continue
      }
      expect(current.status).toBe(200)
      const stream = current
      await Promise.race([stream.ended, until(() => stopped, 'the soak ended', { timeoutMs: 600_000, everyMs: 50 })])
      received.push(...stream.events)
      stream.close()
    }
  })()
  return {
    received,
    /** Every event so far, those of the open connection included. */
    all: () => [...received, ...(current?.events ?? [])],
    async stop() {
      stopped = true
      await loop
    },
  }
}

const query = <T>(sql: string, values: unknown[] = []) => queryPostgres<T>(database.url, sql, values)

/**
 * A failing run's evidence in test-results/farm-soak/<seed>-<time>/: what went wrong, every replica's log,
 * the sends and events as the database holds them, and each printer's starts as the fakes saw them.
 */
async function keepEvidence(report: string[]): Promise<void> {
  const dir = join('test-results', 'farm-soak', `${seed}-${Date.now()}`)
  await mkdir(dir, { recursive: true })
  const sends = await query(
    `select p.name, d.created_at, d.outcome, d.remote_name, d.detail from dispatches d join printers p on p.id = d.printer_id order by d.created_at`,
  )
  const logged = await query('select id, type, subject, data, created_at from events order by id')
  const printers = fleet.map(({ name, id, host, model, filament, groups, log }) => ({
    ...{ name, id, host, model, filament, groups },
    starts: log.map((run) => ({ ...run, at: new Date(run.at).toISOString() })),
  }))
  const logs = [...serviceLogs, ...live().map((replica) => replica.output())]
  await writeFile(join(dir, 'report.json'), JSON.stringify({ seed, report, printers, sends }, null, 1))
  await writeFile(join(dir, 'events.json'), JSON.stringify(logged, null, 1))
  await writeFile(join(dir, 'service.log'), logs.join('\n'))
  console.log(`farm soak evidence: ${dir}`)
}

describe('a farm soak: two replicas killed at random, eight mixed printers, 100 jobs', () => {
  beforeAll(async () => {
    console.log(`farm soak seed: ${seed} (SOAK_SEED=${seed} replays it)`)
    buildDir = await ensureBuilt()
    root = await mkdtemp(join(tmpdir(), 'vault-soak-'))
    database = await createTestDatabase(root)
    await startReplica(0)
    await startReplica(1)
    token = (await signIn(replicas[0]?.baseUrl ?? '', admin)).access_token
  }, 600_000)
  afterAll(async () => {
    for (const member of fleet) await member.fake.close()
    await Promise.all([0, 1].map((slot) => killReplica(slot)))
    await database?.drop()
    if (root) await rm(root, { recursive: true, force: true })
  })

  it('prints every job exactly once or ends it with a reason, never starts onto a busy, uncleared or unfit printer, and streams every change in order', async () => {
    const baseUrl = replicas[0]?.baseUrl ?? ''
    const imported = await call(baseUrl, 'POST', '/api/v1/printer-profiles/import', {
      token,
      body: profileBundle(['MK4S', 'MINI']),
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    const profiles = imported.body.items as { id: string; name: string }[]
    const profileOf = (model: PrusaModel) => profiles.find((profile) => profile.name.endsWith(model))?.id
    for (const plan of fleetPlan) {
      const fake =
        plan.host === 'moonraker'
          ? await fakeMoonraker()
          : plan.host === 'prusalink'
            ? await fakePrusaLink()
            : await fakeOctoPrint()
      const created = await call(baseUrl, 'POST', '/api/v1/printers', {
        token,
        json: { name: plan.name, provider: plan.host, address: fake.url, printer_profile_id: profileOf(plan.model) },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const member: Member = {
        ...plan,
        fake,
        id: created.body.id,
        run: null,
        bedClear: true,
        offlineUntil: 0,
        log: [],
      }
      const farm = await call(baseUrl, 'PATCH', `/api/v1/farm/printers/${member.id}`, {
        token,
        json: { groups: plan.groups, loaded_filaments: [plan.filament] },
      })
      expect(farm.status).toBe(200)
      watchStarts(member)
      fleet.push(member)
    }

    const events = followEvents()
    let running = true
    const worldLoop = (async () => {
      while (running) {
        const now = Date.now()
        for (const member of fleet) world(member, now)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    const personLoop = (async () => {
      while (running) {
        await personRound()
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    })()

    // 100 jobs, each with files of its own; queued while the replicas already dispatch. The kinds are
    // weighted by how many printers fit each, so the run is not as long as one overloaded printer's day.
    const kinds: Array<{ model: PrusaModel; filament: Filament; parts: number; weight: number }> = [
      { model: 'MK4S', filament: 'PLA', parts: 1, weight: 29 },
      { model: 'MK4S', filament: 'PLA', parts: 2, weight: 6 },
      { model: 'MK4S', filament: 'PETG', parts: 1, weight: 20 },
      { model: 'MINI', filament: 'PLA', parts: 1, weight: 28 },
      { model: 'MINI', filament: 'PETG', parts: 1, weight: 12 },
      { model: 'XL', filament: 'PLA', parts: 1, weight: 5 },
    ]
    const kindAt = (roll: number) => {
      let left = roll * 100
      for (const kind of kinds) {
        left -= kind.weight
        if (left < 0) return kind
      }
      return kinds[0] as (typeof kinds)[number]
    }
    for (let n = 0; n < 100; n++) {
      const kind = kindAt(plan.next())
      const roll = plan.next()
      const target: SoakJob['target'] =
        roll < 0.5
          ? { kind: 'any' }
          : roll < 0.8
            ? { kind: 'group', group: plan.pick(['left', 'right']) }
            : { kind: 'printer', printer_id: plan.pick(fleet).id }
      const files: string[] = []
      const fileIds: string[] = []
      let modelId: string | undefined
      for (let part = 0; part < kind.parts; part++) {
        const name = `job-${n}-part-${part}-${kind.model}-${kind.filament}.gcode`.toLowerCase()
        const stored = await upload(
          baseUrl,
          token,
          name,
          slicedGcode(kind.model, kind.filament, `soak ${n}/${part} ${seed}`),
          modelId ? { model_id: modelId } : {},
        )
        expect(stored.status, JSON.stringify(stored.body)).toBe(201)
        modelId = stored.body.file.model_id
        files.push(name)
        fileIds.push(stored.body.file.id)
      }
      const copies = plan.chance(0.1) ? 2 : 1
      const soak: SoakJob = {
        n,
        id: '',
        files,
        model: kind.model,
        filament: kind.filament,
        copies,
        target,
        placeable: false,
      }
      soak.placeable = fleet.some((member) => targets(member, soak) && fits(member, soak))
      jobs.push(soak)
      const queued = await call(baseUrl, 'POST', '/api/v1/queue', {
        token,
        json: { file_ids: fileIds, copies, target, max_attempts: 3 },
      })
      expect(queued.status, JSON.stringify(queued.body)).toBe(201)
      soak.id = queued.body.id
    }

    // kill -9 at seeded moments, one replica at a time, each started again at once.
    const chaos = (async () => {
      while (running) {
        const waitMs = chaosRng.between(1_500, 4_000)
        const deadline = Date.now() + waitMs
        await until(() => !running || Date.now() >= deadline, 'the next kill', { timeoutMs: 60_000, everyMs: 50 })
        if (!running) break
        const slot = chaosRng.pick([0, 1])
        await killReplica(slot)
        await startReplica(slot)
      }
    })()

    const ended = async () => {
      const states = await query<{ state: string }>('select state from print_jobs')
      return states.length === 100 && states.every((row) => ['completed', 'failed', 'cancelled'].includes(row.state))
    }
    try {
      // Every job ended, and the replicas were killed at least four times on the way (a quick run waits for them).
      await until(async () => kills >= 4 && (await ended()), 'every job ended after four kills', {
        timeoutMs: 150_000,
        everyMs: 500,
      })
    } catch (error) {
      const open = await query<{ id: string; state: string; wait_reason: string | null; last_error: string | null }>(
        `select id, state, wait_reason, last_error from print_jobs where state not in ('completed', 'failed', 'cancelled')`,
      )
      const named = open.map((row) => ({ job: jobs.find((job) => job.id === row.id)?.n, ...row }))
      await keepEvidence([`jobs that did not end: ${JSON.stringify(named)}`, ...violations])
      throw error
    } finally {
      running = false
      await Promise.all([worldLoop, personLoop, chaos])
    }

    // The stream catches up with the log, then stops.
    const [newest] = await query<{ id: string }>('select max(id) as id from events')
    // At least that far: a printer's link may still change, and the vault publishes it.
    const caughtUp = () => Number(events.all().at(-1)?.id ?? 0) >= Number(newest?.id ?? 0)
    await until(caughtUp, 'the event stream caught up', { timeoutMs: 15_000 })
    await events.stop()

    const rows = await query<{
      id: string
      state: string
      copies_done: number
      last_error: string | null
      wait_reason: string | null
    }>('select id, state, copies_done, last_error, wait_reason from print_jobs')
    const report: string[] = [...violations]
    for (const job of jobs) {
      const row = rows.find((candidate) => candidate.id === job.id)
      const runs = job.files.map((file) => starts.get(file) ?? [])
      const printed = runs.map((list) => list.filter((run) => run.outcome === 'completed').length)
      if (row?.state === 'completed') {
        if (printed.some((count) => count !== job.copies))
          report.push(
            `job ${job.n} completed with ${printed.join('/')} good prints of its files, not ${job.copies} each`,
          )
      } else if (row?.state === 'failed') {
        if (!row.last_error) report.push(`job ${job.n} failed without a reason`)
      } else if (row?.state === 'cancelled') {
        if (job.placeable) report.push(`job ${job.n} was cancelled though a printer of its target fits it`)
        if (runs.some((list) => list.length > 0)) report.push(`job ${job.n} was cancelled after it printed`)
      } else report.push(`job ${job.n} ended ${row?.state}`)
    }

    // The stream: ids strictly rising across every reconnection, and each job's changes as the log has them.
    const seen = events.received
    const ids = seen.map((event) => Number(event.id))
    if (ids.some((id, i) => i > 0 && id <= (ids[i - 1] ?? 0))) report.push('the stream repeated or reordered events')
    const logged = await query<{ id: string; type: string; subject: string }>(
      `select id, type, subject from events where subject like 'job:%' order by id`,
    )
    const firstSeen = ids[0] ?? Number.POSITIVE_INFINITY
    for (const job of jobs) {
      const subject = `job:${job.id}`
      const inLog = logged
        .filter((event) => event.subject === subject && Number(event.id) >= firstSeen)
        .map((event) => event.type)
      const streamed = seen.filter((event) => event.data.subject === subject).map((event) => event.event)
      if (JSON.stringify(inLog) !== JSON.stringify(streamed))
        report.push(`job ${job.n}: the stream told ${streamed.join(',')}; the log holds ${inLog.join(',')}`)
      if (streamed[0] !== 'job.queued') report.push(`job ${job.n}: the stream did not start with job.queued`)
    }

    console.log(
      `farm soak seed ${seed}: ${kills} kills, ${[...starts.values()].flat().length} starts, ${seen.length} events, ` +
        `${rows.filter((row) => row.state === 'completed').length} completed, ` +
        `${rows.filter((row) => row.state === 'failed').length} failed, ${rows.filter((row) => row.state === 'cancelled').length} cancelled`,
    )
    if (report.length > 0) await keepEvidence(report)
    expect(report, `seed ${seed}`).toEqual([])
    expect(kills).toBeGreaterThanOrEqual(4)
    expect(rows.filter((row) => row.state === 'completed').length).toBeGreaterThan(50)
  }, 300_000)
})
