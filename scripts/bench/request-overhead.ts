/**
 * Request overhead (issue 18): `npx tsx scripts/bench/request-overhead.ts [--builds dist[,DIR…]]
 * [--seconds 10] [--connections 16] [--models 1000]` (after `npm run build`; DIR: another build,
 * `tsc -p tsconfig.build.json --outDir DIR`, to compare source states in one run).
 *
 * Throughput on loopback with autocannon, each target alone for `--seconds`: the baselines first
 * and again at the end (scripts/bench/bare-route.ts: bare Hono routes on @hono/node-server, in a
 * process of their own as the vault is, answering a fixed body like `/me`'s and a fixed page of 50
 * model summaries), then per build, on an SQLite library of `--models` generated models: `GET
 * /api/v1/me` with a bearer token (authentication and one session check: the cheapest
 * authenticated request) and `GET /api/v1/models?limit=50` (a page of the library). Prints a
 * Markdown table with requests/s, p50/p99 latency, errors, bytes per response, the serving
 * process's CPU time per request (user + system, from /proc), and each target's ratio to both
 * baselines by throughput and by CPU: on a shared machine throughput follows the neighbours' load,
 * CPU per request much less. `/me` is judged against the bare `/me`, the page against the bare page.
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
  },
})
const seconds = Number(args.seconds)
const connections = Number(args.connections)

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

async function measureBuild(buildDir: string): Promise<Measured[]> {
  const work = mkdtempSync(join(tmpdir(), 'vault-overhead-'))
  const dataDir = join(work, 'data')
  const databaseUrl = `sqlite:${join(dataDir, 'vault.sqlite')}`
  const database = openDatabaseUrl(databaseUrl, dataDir)
  await writeLibrary(database, Number(args.models))
  await database.close()
  let service: BuiltService | undefined
  try {
    service = await startBuiltService({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: databaseUrl }, buildDir)
    const headers = { Authorization: service.authorization }
    return [
      await load(`${buildDir}: GET /api/v1/me`, service.pid, `${service.url}/api/v1/me`, headers),
      await load(
        `${buildDir}: GET /api/v1/models?limit=50`,
        service.pid,
        `${service.url}/api/v1/models?limit=50`,
        headers,
      ),
    ]
  } finally {
    await service?.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

const bare = await startBareRoutes()
const rows: Measured[] = []
const bareRows: Record<'me' | 'page', Measured[]> = { me: [], page: [] }
const measureBare = async (when: string) => {
  for (const route of ['me', 'page'] as const) {
    const row = await load(`bare Hono route \`/${route}\` (${when})`, bare.pid, `${bare.url}/${route}`)
    bareRows[route].push(row)
    rows.push(row)
  }
}
try {
  await measureBare('before')
  for (const build of args.builds.split(',')) rows.push(...(await measureBuild(build)))
  await measureBare('after')
} finally {
  await bare.stop()
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const baselines = (['me', 'page'] as const).map((route) => ({
  requestsPerSecond: mean(bareRows[route].map((row) => row.requestsPerSecond)),
  cpuMicros: mean(bareRows[route].map((row) => row.cpuMicros)),
}))
console.log(`\n${connections} connections, ${seconds} s each, ${args.models} models, Node ${process.version}\n`)
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
