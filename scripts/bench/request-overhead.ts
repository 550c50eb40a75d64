/**
 * Request overhead (issue 18): `npx tsx scripts/bench/request-overhead.ts [--builds dist[,DIR…]]
 * [--seconds 10] [--connections 16] [--models 1000]` (after `npm run build`; DIR: another build,
 * `tsc -p tsconfig.build.json --outDir DIR`, to compare source states in one run).
 *
 * Throughput on loopback with autocannon, each target alone for `--seconds`: a bare Hono route
 * on @hono/node-server answering a JSON body like `/me`'s (the baseline, in its own process as
 * the vault is), then per build, on an SQLite library of `--models` generated models: `GET
 * /api/v1/me` with a bearer token (authentication and one session check: the cheapest
 * authenticated request) and `GET /api/v1/models?limit=50` (a page of the library). Prints a
 * Markdown table with requests/s, p50/p99 latency, errors and the ratio to the bare route, and the
 * serving process's CPU time per request (user + system, from /proc) with its ratio to the bare
 * route's: on a shared machine throughput follows the neighbours' load, CPU per request much less.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { startBareRoute } from './bare-route.js'
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

const bare = await startBareRoute()
const rows: Measured[] = []
try {
  rows.push(await load('bare Hono route (baseline)', bare.pid, bare.url))
  for (const build of args.builds.split(',')) rows.push(...(await measureBuild(build)))
  rows.push(await load('bare Hono route (again, after)', bare.pid, bare.url))
} finally {
  bare.stop()
}
const baseline = (rows[0]!.requestsPerSecond + rows.at(-1)!.requestsPerSecond) / 2
const baselineCpu = (rows[0]!.cpuMicros + rows.at(-1)!.cpuMicros) / 2
console.log(`\n${connections} connections, ${seconds} s each, ${args.models} models, Node ${process.version}\n`)
console.log('| target | requests/s | p50 ms | p99 ms | errors | × bare | CPU µs/request | × bare by CPU |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
for (const row of rows) {
  console.log(
    `| ${row.target} | ${Math.round(row.requestsPerSecond)} | ${row.p50} | ${row.p99} | ${row.errors} | ${(row.requestsPerSecond / baseline).toFixed(2)} | ${Math.round(row.cpuMicros)} | ${(baselineCpu / row.cpuMicros).toFixed(2)} |`,
  )
}
