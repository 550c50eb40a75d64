/**
 * Request overhead (issue 18): `npx tsx scripts/bench/request-overhead.ts [--builds dist[,DIR…]]
 * [--seconds 10] [--connections 16] [--models 1000] [--rounds 1]` (after `npm run build`; DIR: another build,
 * `tsc -p tsconfig.build.json --outDir DIR`, to compare source states in one run).
 *
 * Throughput on loopback with autocannon, each target alone for `--seconds`: the baselines first
 * and again after each of `--rounds` rounds of every build (scripts/bench/bare-route.ts: bare Hono routes on @hono/node-server, in a
 * process of their own as the vault is, answering a fixed body like `/me`'s and a fixed page of 50
 * model summaries), then per build, on an SQLite library of `--models` generated models: `GET
 * /api/v1/me` with a bearer token (authentication and one session check: the cheapest
 * authenticated request) and `GET /api/v1/models?limit=50` (a page of the library). Prints a
 * Markdown table with requests/s, p50/p99 latency, errors, bytes per response, the serving
 * process's CPU time per request (user + system, from /proc), and each target's ratio to both
 * baselines by throughput and by CPU: on a shared machine throughput follows the neighbours' load,
 * CPU per request much less. `/me` is judged against the bare `/me`, the page against the bare page:
 * a last table sets each round's figure against the bare route measured just before and after that
 * round, and gives the median over the rounds.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { startBareRoutes } from './bare-route.js'
import { type BuiltService, cpuSeconds, startBuiltService } from './built-service.js'
import { openDatabaseUrl, writeLibrary } from './library-generator.js'

const { values: args } = parseArgs({
  options: {
    builds: { type: 'string', default: 'dist' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    models: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1' },
  },
})
const seconds = Number(args.seconds)
const connections = Number(args.connections)
const rounds = Number(args.rounds)

interface Measured {
  target: string
  requestsPerSecond: number
  p50: number
  p99: number
  errors: number
  /** Response size with headers, in bytes. */
  bytes: number
  /** CPU time of the serving process per request, in microseconds. */
  cpuMicros: number
}

async function load(target: string, pid: number, url: string, headers: Record<string, string> = {}): Promise<Measured> {
  // A short warm-up first: JIT, statement caches and connection set-up are not what is measured.
  await autocannon({ url, connections, duration: 2, headers })
  const cpuBefore = cpuSeconds(pid)
  const result = await autocannon({ url, connections, duration: seconds, headers })
  const cpuMicros = ((cpuSeconds(pid) - cpuBefore) * 1e6) / result.requests.total
  return {
    target,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    bytes: result.throughput.total / result.requests.total,
    cpuMicros,
  }
}

interface ServedBuild {
  build: string
  service: BuiltService
  work: string
}

/** A build's service on a generated library of its own (written with this tree's migrations). */
async function serveBuild(build: string): Promise<ServedBuild> {
  const work = mkdtempSync(join(tmpdir(), 'vault-overhead-'))
  const dataDir = join(work, 'data')
  const databaseUrl = `sqlite:${join(dataDir, 'vault.sqlite')}`
  const database = openDatabaseUrl(databaseUrl, dataDir)
  await writeLibrary(database, Number(args.models))
  await database.close()
  return {
    build,
    work,
    service: await startBuiltService({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: databaseUrl }, build),
  }
}

const vaultTargets = [
  { name: 'me', label: 'GET /api/v1/me', path: '/api/v1/me' },
  { name: 'page', label: 'GET /api/v1/models?limit=50', path: '/api/v1/models?limit=50' },
] as const

const bare = await startBareRoutes()
const served: ServedBuild[] = []
const rows: Measured[] = []
/** The bare routes' figures after each round (index 0: before the first). */
const bareRounds: Record<'me' | 'page', Measured>[] = []
/** Each build's figures per round, by target. */
const buildRounds = new Map<string, Record<'me' | 'page', Measured>[]>()
const measureBare = async (when: string) => {
  const measured = {} as Record<'me' | 'page', Measured>
  for (const route of ['me', 'page'] as const) {
    measured[route] = await load(`bare Hono route \`/${route}\` (${when})`, bare.pid, `${bare.url}/${route}`)
    rows.push(measured[route])
  }
  bareRounds.push(measured)
}
try {
  for (const build of args.builds.split(',')) served.push(await serveBuild(build))
  await measureBare('before')
  // Each round measures every build between two measurements of the bare routes, so every figure has
  // a baseline taken minutes around it: this machine's speed drifts by ±15 % from one minute to the next.
  for (let round = 1; round <= rounds; round++) {
    for (const { build, service } of served) {
      const headers = { Authorization: service.authorization }
      const measured = {} as Record<'me' | 'page', Measured>
      for (const target of vaultTargets) {
        const name = `${build}: ${target.label}${rounds > 1 ? ` (round ${round})` : ''}`
        measured[target.name] = await load(name, service.pid, `${service.url}${target.path}`, headers)
        rows.push(measured[target.name])
      }
      buildRounds.set(build, [...(buildRounds.get(build) ?? []), measured])
    }
    await measureBare(round === rounds ? 'after' : `after round ${round}`)
  }
} finally {
  await bare.stop()
  for (const { service, work } of served) {
    await service.stop()
    rmSync(work, { recursive: true, force: true })
  }
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const baselines = (['me', 'page'] as const).map((route) => ({
  requestsPerSecond: mean(bareRounds.map((round) => round[route].requestsPerSecond)),
  cpuMicros: mean(bareRounds.map((round) => round[route].cpuMicros)),
}))
console.log(
  `\n${connections} connections, ${seconds} s each, ${args.models} models, ${rounds} round${rounds > 1 ? 's' : ''}, Node ${process.version}\n`,
)
console.log(
  '| target | requests/s | p50 ms | p99 ms | errors | bytes | CPU µs/request | × bare `/me` | × bare page | × bare `/me` by CPU | × bare page by CPU |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const row of rows) {
  const throughput = baselines.map((base) => (row.requestsPerSecond / base.requestsPerSecond).toFixed(2))
  const cpu = baselines.map((base) => (base.cpuMicros / row.cpuMicros).toFixed(2))
  console.log(
    `| ${row.target} | ${Math.round(row.requestsPerSecond)} | ${row.p50} | ${row.p99} | ${row.errors} | ${Math.round(row.bytes)} | ${Math.round(row.cpuMicros)} | ${throughput.join(' | ')} | ${cpu.join(' | ')} |`,
  )
}
// Against the bare route of the same kind measured just before and just after the round.
console.log('\nEach target against its own bare route measured around the same round, median over the rounds:\n')
console.log('| target | × bare by throughput (median, range) | × bare by CPU (median, range) |')
console.log('|---|---:|---:|')
for (const [build, measuredRounds] of buildRounds) {
  for (const target of vaultTargets) {
    const around = (round: number) => [bareRounds[round]![target.name], bareRounds[round + 1]![target.name]]
    const byThroughput = measuredRounds.map(
      (measured, round) =>
        measured[target.name].requestsPerSecond / mean(around(round).map((row) => row.requestsPerSecond)),
    )
    const byCpu = measuredRounds.map(
      (measured, round) => mean(around(round).map((row) => row.cpuMicros)) / measured[target.name].cpuMicros,
    )
    const range = (values: number[]) =>
      `**${median(values).toFixed(2)}** (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`
    console.log(`| ${build}: ${target.label} | ${range(byThroughput)} | ${range(byCpu)} |`)
  }
}
