/**
 * The print queue's dispatcher at farm scale (issue 39): `npx tsx scripts/bench/dispatch.ts
 * [--database sqlite|postgres] [--printers 50] [--jobs 1000] [--moments 60]`.
 *
 * One vault process (built as `npm start` builds it, in this process so the moments can be timed
 * from inside), 50 fake printers on real sockets (Moonraker, PrusaLink and OctoPrint, each busy
 * with a print of its own), 1,000 queued jobs (any printer, one of five groups, or one printer;
 * files in PLA or PETG against printers loaded with one or the other, so some jobs fit only some
 * printers). Each moment: one printer's print ends and a person confirms its bed clear (`POST
 * /printers/{id}/bed-cleared`, which wakes the dispatcher). Timed twice: the decision, from the
 * service's log line for the confirmation (written once it has committed) to its log line for the
 * job chosen for that printer (written once the job is claimed); and the whole moment, from the
 * request to the upload's first byte at the fake, after which it prints for good. Baseline, same
 * run: one status round-trip to a fake printer (the confirmation, the dispatcher and the send each
 * look at the printer once). An event stream (`GET /api/v1/events`) is open throughout: its lag is
 * the time from an event's commit (`created_at`) to its arrival at the client.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createNodeDeps } from '../../src/adapters/node/node-deps.js'
import type { FakePrinter } from '../../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker, type MoonrakerBehaviour } from '../../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakeOctoPrint, type OctoPrintBehaviour } from '../../src/adapters/printers/octoprint/octoprint.fake.js'
import { fakePrusaLink, type PrusaLinkBehaviour } from '../../src/adapters/printers/prusalink/prusalink.fake.js'
import { createApp } from '../../src/app.js'
import { ensureFirstSuperuser } from '../../src/core/accounts/first-superuser.js'
import { parseConfig } from '../../src/core/config/config.js'
import { createJob } from '../../src/core/farm/create-job.js'
import { setFarmPrinter } from '../../src/core/farm/farm-printers.js'
import { createPrinter, printerStatus } from '../../src/core/printers/printers.js'
import { createJsonLogger } from '../../src/core/runtime/logger.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    printers: { type: 'string', default: '50' },
    jobs: { type: 'string', default: '1000' },
    moments: { type: 'string', default: '60' },
  },
})
if (args.database !== 'sqlite' && args.database !== 'postgres') throw new Error('--database must be sqlite or postgres')
const printerCount = Number(args.printers)
const jobCount = Number(args.jobs)
const moments = Number(args.moments)

type Behaviour = MoonrakerBehaviour & PrusaLinkBehaviour & OctoPrintBehaviour
interface Member {
  id: string
  host: 'moonraker' | 'prusalink' | 'octoprint'
  fake: FakePrinter<Behaviour>
  /** When a moment began on it, when the service logged its bed clear and its job chosen, and when its upload arrived. */
  readyAt: number | null
  clearedAt: number | null
  chosenAt: number | null
  sentAt: number | null
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms (n = ${values.length})`

const dir = mkdtempSync(join(tmpdir(), 'vault-bench-dispatch-'))
const server = args.database === 'postgres' ? await startThrowawayPostgres() : undefined
const config = parseConfig({
  VAULT_DATA_DIR: dir,
  VAULT_DATABASE_URL: server ? server.adminUrl : `sqlite:${dir}/db/vault.sqlite`,
  VAULT_ADMIN_USERNAME: 'bench',
  VAULT_ADMIN_PASSWORD: 'bench-password-123',
  VAULT_LOG_LEVEL: 'warn',
  VAULT_PRINTER_STATUS_TTL_MS: '0',
  VAULT_PRINTER_CONFIRM_MS: '3000',
  // Only the moments wake the dispatcher: a pass on a timer would blur what is measured.
  VAULT_QUEUE_INTERVAL_MS: '3600000',
})
const members: Member[] = []
/** The service's log: warnings and errors shown; the two lines a moment is timed by, timed as they are written. */
const logger = createJsonLogger(
  (line) => {
    const { level, msg, printer_id } = JSON.parse(line) as { level: string; msg: string; printer_id?: string }
    const member = members.find((m) => m.id === printer_id && m.readyAt !== null)
    if (member && msg === 'printer bed confirmed clear') member.clearedAt = performance.now()
    if (member && msg === 'print queue job chosen') member.chosenAt ??= performance.now()
    if (level === 'warn' || level === 'error') process.stderr.write(`${line}\n`)
  },
  { level: 'info' },
)
const service = {
  name: 'model-vault',
  version: 'bench',
  instanceId: crypto.randomUUID(),
  startedAt: new Date().toISOString(),
}
const { deps, close } = await createNodeDeps(config, { logger, service })
const streamAbort = new AbortController()
try {
  await ensureFirstSuperuser(deps, logger, config.admin)
  const app = createApp(deps)
  const login = await app.request('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-123' }),
  })
  const authorization = `Bearer ${((await login.json()) as { access_token: string }).access_token}`

  // Files: PLA and PETG, 20 of each, PrusaSlicer's metadata.
  const fileIds: { id: string; filament: 'PLA' | 'PETG' }[] = []
  for (let n = 0; n < 40; n++) {
    const filament = n % 2 === 0 ? 'PLA' : 'PETG'
    const text = [
      `; generated by PrusaSlicer 2.8.1+linux-x64; bench part ${n}`,
      'G1 Z0.2 F720',
      `; filament_type = ${filament}`,
      '; nozzle_diameter = 0.4',
    ].join('\n')
    const form = new FormData()
    form.append('file', new Blob([text]), `part-${n}.gcode`)
    const answer = await app.request('/api/v1/ingest', {
      method: 'POST',
      headers: { Authorization: authorization },
      body: form,
    })
    if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${await answer.text()}`)
    fileIds.push({ id: ((await answer.json()) as { file: { id: string } }).file.id, filament })
  }

  // Printers: three hosts, five groups, PLA or PETG loaded; each busy with a print of its own.
  for (let n = 0; n < printerCount; n++) {
    const host = n % 5 < 3 ? 'moonraker' : n % 5 === 3 ? 'prusalink' : 'octoprint'
    const fake = (await (host === 'moonraker'
      ? fakeMoonraker()
      : host === 'prusalink'
        ? fakePrusaLink()
        : fakeOctoPrint())) as FakePrinter<Behaviour>
    fake.state.printing = 'someone-elses-print.gcode'
    const row = await createPrinter(deps, { name: `bench-${n}`, provider: host, address: fake.url })
    await setFarmPrinter(deps, row.id, { groups: [`g${n % 5}`], loaded_filaments: [n % 3 === 0 ? 'PETG' : 'PLA'] })
    const member: Member = { id: row.id, host, fake, readyAt: null, clearedAt: null, chosenAt: null, sentAt: null }
    fake.onRequest = (request) => {
      const upload =
        request.method === 'POST'
          ? request.path === '/server/files/upload' || request.path === '/api/files/local'
          : request.method === 'PUT' && request.path.startsWith('/api/v1/files/')
      if (upload && member.readyAt !== null && member.sentAt === null) member.sentAt = performance.now()
    }
    members.push(member)
  }

  for (let n = 0; n < jobCount; n++) {
    const roll = n % 10
    const target =
      roll < 5
        ? ({ kind: 'any' } as const)
        : roll < 8
          ? ({ kind: 'group', group: `g${n % 5}` } as const)
          : ({ kind: 'printer', printer_id: members[n % members.length]?.id ?? '' } as const)
    const file = fileIds[n % fileIds.length]
    await createJob(
      deps,
      { file_ids: [file?.id ?? ''], copies: 1, target, priority: 0, max_attempts: 3, accept_warnings: true },
      { userId: null, now: new Date().toISOString() },
    )
  }

  // The event stream, open throughout: each event's lag from its commit to its arrival.
  const lags: number[] = []
  const stream = await app.request('/api/v1/events', {
    headers: { Authorization: authorization },
    signal: streamAbort.signal,
  })
  // Cancelled at the end, as a client that goes away cancels the body (the server's stream then ends).
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
  const reading = (async () => {
    const decoder = new TextDecoder()
    let pending = ''
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const arrived = Date.now()
      pending += decoder.decode(chunk.value, { stream: true })
      const blocks = pending.split('\n\n')
      pending = blocks.pop() ?? ''
      for (const block of blocks) {
        const data = block.split('\n').find((line) => line.startsWith('data: '))
        if (data) lags.push(arrived - Date.parse((JSON.parse(data.slice(6)) as { created_at: string }).created_at))
      }
    }
  })().catch(() => {})

  // A first pass sees every printer busy and writes every job's wait reason.
  const firstPass = performance.now()
  deps.printQueue?.wake()
  /** Waits while some job's `column` is `value`. */
  const whileAnyJob = async (column: 'wait_reason' | 'state', value: string) => {
    const any = () =>
      deps.database.db.selectFrom('print_jobs').select('id').where(column, '=', value).limit(1).executeTakeFirst()
    while (await any()) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await whileAnyJob('wait_reason', 'waiting for the next dispatch')
  console.log(
    `${args.database}: ${printerCount} printers, ${jobCount} jobs; first pass (every wait reason written) ${(performance.now() - firstPass).toFixed(0)} ms`,
  )

  // Baseline: one status round-trip to a fake printer, as the send's own check makes it.
  const roundTrips: number[] = []
  const sample = await deps.database.db
    .selectFrom('printers')
    .selectAll()
    .where('id', '=', members[0]?.id ?? '')
    .executeTakeFirstOrThrow()
  for (let n = 0; n < 50; n++) {
    const started = performance.now()
    await printerStatus(deps, sample, { fresh: true })
    roundTrips.push(performance.now() - started)
  }

  const decisions: number[] = []
  const wholeMoments: number[] = []
  for (let moment = 0; moment < moments; moment++) {
    process.stderr.write(`moment ${moment + 1} of ${moments}\r`)
    const member = members[(moment * 7) % members.length] as Member
    const behaviour = member.fake.behaviour
    if (member.host === 'moonraker') behaviour.jobState = 'complete'
    if (member.host === 'prusalink') behaviour.printer = 'FINISHED'
    if (member.host === 'octoprint') behaviour.finished = true
    member.sentAt = null
    member.clearedAt = null
    member.chosenAt = null
    member.readyAt = performance.now()
    const cleared = await app.request(`/api/v1/printers/${member.id}/bed-cleared`, {
      method: 'POST',
      headers: { Authorization: authorization },
    })
    if (cleared.status !== 200) throw new Error(`bed-cleared: ${cleared.status} ${await cleared.text()}`)
    const deadline = performance.now() + 10_000
    while (member.sentAt === null && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 1))
    if (member.sentAt === null || member.clearedAt === null || member.chosenAt === null)
      throw new Error(`moment ${moment}: nothing was sent to bench printer ${member.id}`)
    decisions.push(member.chosenAt - member.clearedAt)
    wholeMoments.push(member.sentAt - member.readyAt)
    member.readyAt = null
    // Let the send finish and the pass end before the next moment.
    await whileAnyJob('state', 'dispatching')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }

  console.log(`status round-trip (baseline): ${summary(roundTrips)}`)
  console.log(`decision, bed confirmed clear → its job chosen: ${summary(decisions)}; goal p95 < 50 ms`)
  console.log(`whole moment, the person's request → the job's upload reaches the printer: ${summary(wholeMoments)}`)
  console.log(`event stream lag, commit → arrival: ${summary(lags)}`)
  await reader.cancel()
  await reading
} finally {
  streamAbort.abort()
  await Promise.all(members.map((member) => member.fake.close()))
  await close()
  server?.stop()
  rmSync(dir, { recursive: true, force: true })
}
