/**
 * Concurrent load (issue 18): `npx tsx scripts/bench/concurrent-load.ts [--database sqlite|postgres]
 * [--build dist] [--models 10000] [--blob-mib 256] [--clients 64] [--uploaders 8] [--pollers 3]
 * [--think-ms 1000] [--upload-think-ms 1000] [--alone-seconds 5] [--seconds 60] [--soak-minutes 10]`
 * (after `npm run build`, or `--build DIR` of a `tsc -p tsconfig.build.json --outDir DIR`).
 *
 * The built service as `npm start` runs it, on a fresh data directory: SQLite by default, or
 * the test suite's throwaway PostgreSQL. The library: `--models` generated models (metadata only,
 * scripts/bench/library-generator.ts), then `--blob-mib` MiB of random files uploaded in 32 MiB
 * parts so a backup has real bytes to pack, and three fake printers (Moonraker, OctoPrint,
 * PrusaLink) on real sockets. Then three phases:
 *
 * 1. Each route alone: one client, back to back, `--alone-seconds` each; one backup alone.
 * 2. The mix for `--seconds`: `--clients` browsing clients (scripts/bench/browsing-clients.ts, in a
 *    process of their own), `--uploaders` uploading small STL and G-code files (a quarter of them
 *    files sent before), `--pollers` printer dashboards polling every 2 s, and backups one after
 *    another (the service runs one at a time).
 * 3. The soak: the same mix for `--soak-minutes` (0: none), the service's RSS sampled every second.
 *
 * Prints a Markdown report: per route requests, throughput, p50/p99/max and errors (any answer
 * outside 2xx, any request without an answer), the backups, memory, the service's CPU and the
 * machine's load average. The baseline, in every phase with browsing: a bare Hono route in its
 * own process (scripts/bench/bare-route.ts) asked every 200 ms by the browsing process, which
 * shows what the machine itself adds to a request's time. Each phase signs in afresh: an access token lasts 15 minutes, so a
 * phase may last at most 14.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { startBareRoutes } from './bare-route.js'
import { type BrowsingResult, bareRoute, browsingRoutes, startBrowsingClients } from './browsing-clients.js'
import { type BuiltService, cpuSeconds, signInBench, startBuiltService } from './built-service.js'
import { commonWord, filterTag, openDatabaseUrl, rareWord, writeLibrary } from './library-generator.js'
import {
  type BackupRun,
  backupOnce,
  backupRoutes,
  pollPrintersOnce,
  printerRoutes,
  registerFakePrinters,
  runLoops,
  type UploadPool,
  uploadOnce,
  uploadRoutes,
} from './load-loops.js'
import { mergeTallies, routeTable, summariseTally, type Tallies } from './load-tally.js'
import { writeRandomFile } from './random-file.js'

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    build: { type: 'string', default: 'dist' },
    models: { type: 'string', default: '10000' },
    'blob-mib': { type: 'string', default: '256' },
    clients: { type: 'string', default: '64' },
    uploaders: { type: 'string', default: '8' },
    pollers: { type: 'string', default: '3' },
    'think-ms': { type: 'string', default: '1000' },
    'upload-think-ms': { type: 'string', default: '1000' },
    'alone-seconds': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '60' },
    'soak-minutes': { type: 'string', default: '10' },
  },
})
if (args.database !== 'sqlite' && args.database !== 'postgres') throw new Error('--database must be sqlite or postgres')
const number = (name: keyof typeof args) => Number(args[name])
if (number('soak-minutes') > 14) throw new Error('--soak-minutes at most 14: an access token lasts 15 minutes')

const pollIntervalMs = 2000
/** The share of uploads that send a file sent before (the dedup path). */
const duplicateShare = 0.25

interface PhasePlan {
  seconds: number
  clients: number
  thinkMs: number
  routes?: string[]
  uploaders: number
  duplicateShare: number
  uploadThinkMs: number
  pollers: number
  pollIntervalMs: number
  backups: boolean
}

interface PhaseResult {
  seconds: number
  tallies: Tallies
  backups: BackupRun[]
  /** The service's RSS each second: seconds since the phase began, MiB. */
  rss: { at: number; mib: number }[]
  /** The service's CPU time over the phase, in % of one core. */
  serviceCpuPercent: number
  /** The machine's 1-minute load average at the end of the phase. */
  loadAverage: number
  clientLagMs: BrowsingResult['clientLagMs'] | undefined
}

const none: PhasePlan = {
  seconds: 0,
  clients: 0,
  thinkMs: 0,
  uploaders: 0,
  duplicateShare: 0,
  uploadThinkMs: 0,
  pollers: 0,
  pollIntervalMs: 0,
  backups: false,
}

/** Runs one phase of load against `service` as `plan` says, signed in afresh. */
async function runPhase(
  service: BuiltService,
  context: { printerIds: string[]; pool: UploadPool; backupDir: string; bareUrl: string },
  plan: PhasePlan,
): Promise<PhaseResult> {
  const target = { url: service.url, authorization: await signInBench(service.url), tallies: {} as Tallies }
  let stopped = false
  const isStopped = () => stopped
  const backups: BackupRun[] = []
  const rss: PhaseResult['rss'] = []
  const browsing =
    plan.clients > 0
      ? await startBrowsingClients({
          url: service.url,
          authorization: target.authorization,
          terms: { common: commonWord, rare: rareWord, tag: filterTag },
          bareUrl: context.bareUrl,
          clients: plan.clients,
          thinkMs: plan.thinkMs,
          ...(plan.routes ? { routes: plan.routes } : {}),
        })
      : undefined
  const began = performance.now()
  const cpuBefore = cpuSeconds(service.pid)
  const sampler = setInterval(() => rss.push({ at: (performance.now() - began) / 1000, mib: service.rssMiB() }), 1000)
  const loops = Promise.all([
    runLoops(
      plan.uploaders,
      isStopped,
      (random) => uploadOnce(target, context.pool, plan.duplicateShare, plan.uploadThinkMs, random),
      100,
    ),
    runLoops(plan.pollers, isStopped, () => pollPrintersOnce(target, context.printerIds, plan.pollIntervalMs), 200),
    runLoops(
      plan.backups ? 1 : 0,
      isStopped,
      async () => {
        const run = await backupOnce(target, context.backupDir)
        if (run) backups.push(run)
      },
      300,
    ),
  ])
  await new Promise((resolve) => setTimeout(resolve, plan.seconds * 1000))
  stopped = true
  const browsed = await browsing?.stop()
  await loops
  clearInterval(sampler)
  const seconds = (performance.now() - began) / 1000
  return {
    seconds: plan.seconds,
    tallies: browsed ? mergeTallies(target.tallies, browsed.tallies) : target.tallies,
    backups,
    rss,
    serviceCpuPercent: ((cpuSeconds(service.pid) - cpuBefore) / seconds) * 100,
    loadAverage: loadavg()[0]!,
    clientLagMs: browsed?.clientLagMs,
  }
}

/** Uploads `mib` MiB of random bytes in 32 MiB files (stored as opaque `.bin` files) with curl, as a script would. */
function fillBlobs(service: BuiltService, work: string, mib: number): void {
  const part = join(work, 'part.bin')
  for (let i = 0; i * 32 < mib; i++) {
    writeRandomFile(part, Math.min(32, mib - i * 32))
    execFileSync('curl', [
      '-sf',
      '-o',
      '/dev/null',
      '-H',
      `Authorization: ${service.authorization}`,
      '-T',
      part,
      `${service.url}/api/v1/ingest/scan-${i}.bin`,
    ])
  }
  rmSync(part)
}

// ---------------------------------------------------------------- report

const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0))
const met = (ok: boolean) => (ok ? '**met**' : '**not met**')
const routeOrder = [
  bareRoute,
  ...browsingRoutes.map((entry) => entry.route),
  uploadRoutes.fresh,
  uploadRoutes.duplicate,
  printerRoutes.list,
  printerRoutes.one,
  backupRoutes.start,
  backupRoutes.poll,
]
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

/** Least-squares slope of RSS over time, in MiB per minute. */
function slopePerMinute(samples: { at: number; mib: number }[]): number {
  const [x, y] = [mean(samples.map((s) => s.at)), mean(samples.map((s) => s.mib))]
  const covariance = samples.reduce((sum, s) => sum + (s.at - x) * (s.mib - y), 0)
  const variance = samples.reduce((sum, s) => sum + (s.at - x) ** 2, 0)
  return variance === 0 ? 0 : (covariance / variance) * 60
}

function backupLine(runs: BackupRun[]): string {
  if (runs.length === 0) return 'Backups: none finished.'
  const seconds = runs.map((run) => run.seconds).sort((a, b) => a - b)
  const failed = runs.filter((run) => run.status !== 'complete').length
  return `Backups: ${runs.length} ran back to back (${failed} failed), ${seconds[0]!.toFixed(1)} / ${seconds[Math.floor(seconds.length / 2)]!.toFixed(1)} / ${seconds.at(-1)!.toFixed(1)} s (min / median / max) each, archives of ${runs.at(-1)!.archiveMiB.toFixed(0)} MiB at the end.`
}

function phaseLines(title: string, phase: PhaseResult): string[] {
  const peak = Math.max(...phase.rss.map((s) => s.mib))
  return [
    `### ${title}`,
    '',
    ...routeTable(phase.tallies, phase.seconds, routeOrder),
    '',
    `${backupLine(phase.backups)} Service: ${phase.serviceCpuPercent.toFixed(0)} % of one core, RSS ${phase.rss[0]?.mib.toFixed(0)} → peak ${peak.toFixed(0)} MiB. Load average at the end: ${phase.loadAverage.toFixed(1)}. Browsing process's own event-loop delay: p99 ${phase.clientLagMs?.p99.toFixed(0)} ms, max ${phase.clientLagMs?.max.toFixed(0)} ms.`,
    '',
  ]
}

function soakLines(soak: PhaseResult): string[] {
  const minutes = soak.seconds / 60
  const first = soak.rss.filter((s) => s.at < 60).map((s) => s.mib)
  const last = soak.rss.filter((s) => s.at >= soak.seconds - 60).map((s) => s.mib)
  const settled = soak.rss.filter((s) => s.at >= 60)
  return [
    ...phaseLines(`Soak: the mix for ${minutes} minutes`, soak),
    `Service RSS: first minute mean ${mean(first).toFixed(0)} MiB (max ${Math.max(...first).toFixed(0)}), last minute mean ${mean(last).toFixed(0)} MiB (max ${Math.max(...last).toFixed(0)}); least-squares slope ${slopePerMinute(soak.rss).toFixed(2)} MiB/min over the whole soak, ${slopePerMinute(settled).toFixed(2)} MiB/min after the first minute.`,
    '',
    `| minute | ${Array.from({ length: Math.ceil(minutes) }, (_, m) => m + 1).join(' | ')} |`,
    `|---|${Array.from({ length: Math.ceil(minutes) }, () => '---:|').join('')}`,
    `| mean RSS MiB | ${Array.from({ length: Math.ceil(minutes) }, (_, m) =>
      mean(soak.rss.filter((s) => s.at >= m * 60 && s.at < (m + 1) * 60).map((s) => s.mib)).toFixed(0),
    ).join(' | ')} |`,
    '',
  ]
}

function goalLines(mix: PhaseResult, soak: PhaseResult | undefined): string[] {
  const loaded = [mix, ...(soak ? [soak] : [])]
  const errors = loaded.reduce(
    (sum, phase) =>
      sum +
      Object.entries(phase.tallies).reduce((n, [route, tally]) => n + summariseTally(route, tally, 1).errors, 0) +
      phase.backups.filter((run) => run.status !== 'complete').length,
    0,
  )
  // A browsing route that made no request counts as missed (Infinity), never as fast.
  const browsingP99 = Math.max(
    ...browsingRoutes.map(({ route }) =>
      mix.tallies[route] ? summariseTally(route, mix.tallies[route], 1).p99 : Number.POSITIVE_INFINITY,
    ),
  )
  const lines = [
    '| Goal | Result |',
    '|---|---|',
    `| Zero errors (mix${soak ? ' and soak' : ''}) | ${met(errors === 0)} (${errors}) |`,
    `| Browsing p99 under 200 ms while backups and uploads run (worst browsing route, measured window) | ${met(browsingP99 < 200)} (${ms(browsingP99)} ms; the bare route's p99 in the same window: ${mix.tallies[bareRoute] ? ms(summariseTally(bareRoute, mix.tallies[bareRoute], 1).p99) : '–'} ms) |`,
  ]
  if (soak) {
    // Growth is what the goal is about (a leak under a steady mix); a falling slope is memory handed
    // back after a transient, such as a backup packing while uploads arrive, and meets it.
    const slope = slopePerMinute(soak.rss.filter((s) => s.at >= 60))
    lines.push(
      `| Memory flat over the soak: no growth (slope after the first minute under +1 MiB/min) | ${met(slope < 1)} (${slope.toFixed(2)} MiB/min) |`,
    )
  }
  return lines
}

// ---------------------------------------------------------------- run

async function main(): Promise<void> {
  if (!existsSync(join(args.build, 'src/adapters/node/main.js')))
    throw new Error(`No build in ${args.build}: npm run build, or --build DIR`)
  const work = mkdtempSync(join(tmpdir(), 'vault-load-'))
  const dataDir = join(work, 'data')
  const postgres = args.database === 'postgres' ? await startThrowawayPostgres() : undefined
  const databaseUrl = postgres?.adminUrl ?? `sqlite:${join(dataDir, 'db', 'vault.sqlite')}`
  let service: BuiltService | undefined
  let printers: Awaited<ReturnType<typeof registerFakePrinters>> | undefined
  const bare = await startBareRoutes()
  try {
    const database = openDatabaseUrl(databaseUrl, work)
    const generated = await writeLibrary(database, number('models'))
    await database.close()
    service = await startBuiltService({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: databaseUrl }, args.build)
    console.error(`[load] library generated in ${generated.seconds.toFixed(0)} s; uploading ${args['blob-mib']} MiB`)
    fillBlobs(service, work, number('blob-mib'))
    printers = await registerFakePrinters(service.url, service.authorization)
    const context = {
      printerIds: printers.ids,
      pool: { sent: [], next: 0 } as UploadPool,
      backupDir: join(dataDir, 'backups'),
      bareUrl: `${bare.url}/me`,
    }
    // Files to send again: the duplicates of the first phases.
    await runPhase(service, context, { ...none, seconds: 3, uploaders: 2 })

    const alone = { seconds: number('alone-seconds'), tallies: {} as Tallies }
    for (const { route } of browsingRoutes) {
      console.error(`[load] alone: ${route}`)
      const phase = await runPhase(service, context, { ...none, seconds: alone.seconds, clients: 1, routes: [route] })
      mergeTallies(alone.tallies, phase.tallies)
    }
    for (const share of [0, 1]) {
      const phase = await runPhase(service, context, {
        ...none,
        seconds: alone.seconds,
        uploaders: 1,
        duplicateShare: share,
      })
      mergeTallies(alone.tallies, phase.tallies)
    }
    mergeTallies(
      alone.tallies,
      (await runPhase(service, context, { ...none, seconds: alone.seconds, pollers: 1 })).tallies,
    )
    const aloneBackup = await backupOnce(
      { url: service.url, authorization: await signInBench(service.url), tallies: alone.tallies },
      context.backupDir,
    )

    const mixPlan: PhasePlan = {
      seconds: number('seconds'),
      clients: number('clients'),
      thinkMs: number('think-ms'),
      uploaders: number('uploaders'),
      duplicateShare,
      uploadThinkMs: number('upload-think-ms'),
      pollers: number('pollers'),
      pollIntervalMs,
      backups: true,
    }
    console.error(`[load] the mix for ${mixPlan.seconds} s`)
    const mix = await runPhase(service, context, mixPlan)
    const soakSeconds = number('soak-minutes') * 60
    console.error(`[load] the soak for ${soakSeconds} s`)
    const soak = soakSeconds > 0 ? await runPhase(service, context, { ...mixPlan, seconds: soakSeconds }) : undefined

    const version = postgres
      ? execFileSync('psql', ['--version'])
          .toString()
          .trim()
          .replace(/^psql \(PostgreSQL\)/, 'PostgreSQL')
      : 'SQLite (better-sqlite3)'
    const command = `npx tsx scripts/bench/concurrent-load.ts ${process.argv.slice(2).join(' ')}`.trim()
    const lines = [
      `Command: \`${command}\`. Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, ${version}.`,
      '',
      `Library: ${number('models').toLocaleString('en')} generated models (${generated.files.toLocaleString('en')} files, metadata only; searched for its most frequent word \`${commonWord}\` and one of its rarest, \`${rareWord}\`; filtered by the tag \`${filterTag}\`) plus ${args['blob-mib']} MiB of random files; ${printers.ids.length} fake printers (Moonraker, OctoPrint, PrusaLink). Mix: ${mixPlan.clients} browsing clients (think ${mixPlan.thinkMs} ms on average, 0.5–1.5×), ${mixPlan.uploaders} uploaders (think ${mixPlan.uploadThinkMs} ms; ${duplicateShare * 100} % duplicates), ${mixPlan.pollers} printer pollers every ${pollIntervalMs / 1000} s, backups back to back.`,
      '',
      `### Each route alone (one client, back to back, ${alone.seconds} s each)`,
      '',
      ...routeTable(alone.tallies, alone.seconds, routeOrder),
      '',
      aloneBackup
        ? `One backup alone: ${aloneBackup.seconds.toFixed(1)} s, ${aloneBackup.archiveMiB.toFixed(0)} MiB archive (${aloneBackup.status}).`
        : 'The backup alone did not start.',
      '',
      ...phaseLines(`The mix for ${mix.seconds} s`, mix),
      ...(soak ? soakLines(soak) : []),
      '### Goals',
      '',
      ...goalLines(mix, soak),
    ]
    console.log(lines.join('\n'))
  } finally {
    await bare.stop()
    await printers?.close()
    await service?.stop()
    postgres?.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
