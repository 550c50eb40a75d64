/**
 * Upload burst: `npx tsx scripts/campaigns/upload-burst.ts [--uploads 200] [--mib 518]
 * [--readers 32] [--prefill 300] [--seed 1] [--postgres] [--build <dir>]`.
 *
 * Starts the built service (built into test-results/build, as the end-to-end tests build it) on
 * a temporary data directory, fills the library with `--prefill` small models, then sends
 * `--uploads` multipart uploads (`--mib` MiB in all, STL and G-code, 0.2–5 MiB each) all at
 * once while `--readers` readers (in a process of their own, so the upload traffic does not
 * delay their clocks) list and search models in a loop. Prints the service's RSS peak (VmRSS
 * sampled every 20 ms, and VmHWM), reader latency p50/p99/max during the burst, the status of
 * every answer, and checks every upload is stored, readable byte for byte, and that nothing is
 * left in blobs/.staging. `--build` names a build to use instead (`tsc -p tsconfig.build.json
 * --outDir <dir>`), to measure a given source state while others edit the tree. Issue 12 finding 12's goals: RSS under 256 MiB, reader p99 under 200 ms.
 */

import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuilt } from '../../test/support/built-vault.js'
import { filesUnder } from '../../test/support/leftovers.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { seededRandom } from '../seeded-random.js'
import { type CampaignFile, campaignFile } from './campaign-files.js'
import { buildDirArgument, type ServiceProcess, signInAdmin, startServiceProcess } from './service-process.js'

export interface BurstResult {
  /** Answer status → count, over every upload of the burst (0: no answer). */
  uploadStatuses: Record<number, number>
  /** Why uploads got no answer (status 0): the client's error, with its cause → count. */
  noAnswer: Record<string, number>
  /** The stored files, one per upload answered 2xx: id, size and SHA-256 of what was sent. */
  stored: { id: string; size: number; sha256: string }[]
  reads: ReaderResult
}

export interface ReaderResult {
  /** Milliseconds each list or search request took. */
  latenciesMs: number[]
  /** Answer status → count; 0 counts requests that got no answer (connection refused or reset). */
  statuses: Record<number, number>
}

function count(tally: Record<number, number>, status: number): void {
  tally[status] = (tally[status] ?? 0) + 1
}

/** Uploads `file` as the web UI does (multipart, field `file`): its status and stored file id. */
async function uploadFile(url: string, authorization: string, file: CampaignFile) {
  const form = new FormData()
  form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name)
  const res = await fetch(`${url}/api/v1/ingest`, {
    method: 'POST',
    headers: { Authorization: authorization },
    body: form,
  })
  const body = (await res.json().catch(() => null)) as { file?: { id: string } } | null
  return { status: res.status, id: body?.file?.id }
}

/** List and search requests in `readers` loops until `stopped()`: each one's time and status. */
export async function readLoop(
  url: string,
  authorization: string,
  readers: number,
  stopped: () => boolean,
): Promise<ReaderResult> {
  const result: ReaderResult = { latenciesMs: [], statuses: {} }
  const paths = ['/api/v1/models?limit=24', '/api/v1/models?q=part&limit=24', '/api/v1/models?file_format=stl&limit=24']
  await Promise.all(
    Array.from({ length: readers }, async (_, reader) => {
      for (let i = reader; !stopped(); i++) {
        const started = performance.now()
        const status = await fetch(`${url}${paths[i % paths.length]}`, {
          headers: { Authorization: authorization },
        }).then(
          (res) => res.arrayBuffer().then(() => res.status),
          () => 0,
        )
        result.latenciesMs.push(performance.now() - started)
        count(result.statuses, status)
      }
    }),
  )
  return result
}

/** `uploads` files of `totalMiB` in all, with seeded sizes (0.2–5 parts each) and contents. */
export function burstFiles(options: { uploads: number; totalMiB: number; seed: number }): CampaignFile[] {
  const random = seededRandom(options.seed)
  const weights = Array.from({ length: options.uploads }, () => 0.2 + random() * 4.8)
  const scale = (options.totalMiB * 1024 * 1024) / weights.reduce((a, b) => a + b, 0)
  return weights.map((weight, index) => campaignFile(index, Math.round(weight * scale), random))
}

/**
 * Sends `files` all at once while `readers()` runs; resolves once every upload has its answer and
 * the readers have stopped. Make the files beforehand (`burstFiles`): making 500 MiB blocks this
 * thread for seconds, and connections fetch keeps alive meanwhile would be closed by the server
 * (5 s) unseen, then reused here: `write EPIPE` that no real burst causes.
 */
export async function runUploadBurst(
  url: string,
  authorization: string,
  files: CampaignFile[],
  readers: (stopped: () => boolean) => Promise<ReaderResult>,
): Promise<BurstResult> {
  let done = false
  const reading = readers(() => done)
  const uploadStatuses: Record<number, number> = {}
  const noAnswer: Record<string, number> = {}
  const stored: BurstResult['stored'] = []
  await Promise.all(
    files.map(async (file) => {
      const { status, id } = await uploadFile(url, authorization, file).catch((error: Error) => {
        const reason = `${error.message}${error.cause ? `: ${(error.cause as Error).message ?? error.cause}` : ''}`
        noAnswer[reason] = (noAnswer[reason] ?? 0) + 1
        return { status: 0, id: undefined }
      })
      count(uploadStatuses, status)
      if (id)
        stored.push({ id, size: file.bytes.length, sha256: createHash('sha256').update(file.bytes).digest('hex') })
    }),
  )
  done = true
  return { uploadStatuses, noAnswer, stored, reads: await reading }
}

/** Every stored file whose bytes, read back, are not what was sent: its id and what was read instead. */
export async function unreadableFiles(url: string, authorization: string, stored: BurstResult['stored']) {
  const bad: string[] = []
  for (const file of stored) {
    const res = await fetch(`${url}/api/v1/files/${file.id}/content`, { headers: { Authorization: authorization } })
    const bytes = new Uint8Array(await res.arrayBuffer())
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    if (res.status !== 200 || sha256 !== file.sha256) {
      bad.push(`${file.id}: ${res.status}, ${bytes.length} of ${file.size} bytes, sha256 ${sha256.slice(0, 12)}`)
    }
  }
  return bad
}

/**
 * Files left in the blob and thumbnail stores' staging folders once the background analysis has
 * rendered everything the burst queued (a thumbnail being written is in staging until it lands).
 */
export async function stagingLeftovers(url: string, authorization: string, dataDir: string): Promise<string[]> {
  const deadline = Date.now() + 300_000
  for (;;) {
    const res = await fetch(`${url}/api/v1/analysis`, { headers: { Authorization: authorization } })
    const { queued, running } = (await res.json()) as { queued: number; running: number }
    if (queued + running === 0) break
    if (Date.now() > deadline) throw new Error(`the analysis queue still holds ${queued + running} after 5 min`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return filesUnder(dataDir, ['blobs/.staging', 'thumbs/.staging'])
}

/** Status → count of the ingest requests in the service's JSON request log (what it sent, whatever the client saw). */
function loggedIngestStatuses(log: string): Record<number, number> {
  const tally: Record<number, number> = {}
  for (const line of log.split('\n')) {
    if (!line.includes('/api/v1/ingest')) continue
    const status = (JSON.parse(line) as { status?: number }).status
    if (status) count(tally, status)
  }
  return tally
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0
}

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}

/** The readers in a process of their own: runs until stdin closes, then prints its result. */
async function readerProcess(): Promise<void> {
  const [url, authorization, readers] = process.argv.slice(3)
  let stopped = false
  process.stdin.on('close', () => (stopped = true)).resume()
  const result = await readLoop(url!, authorization!, Number(readers), () => stopped)
  process.stdout.write(JSON.stringify(result))
}

function startReaderProcess(url: string, authorization: string, readers: number) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--reader-process', url, authorization, String(readers)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const finished = new Promise<ReaderResult>((resolve) => child.on('exit', () => resolve(JSON.parse(out))))
  return async (stopped: () => boolean) => {
    while (!stopped()) await new Promise((resolve) => setTimeout(resolve, 50))
    child.stdin.end()
    return finished
  }
}

async function main(): Promise<void> {
  const options = { uploads: argument('uploads', 200), totalMiB: argument('mib', 518), seed: argument('seed', 1) }
  const readers = argument('readers', 32)
  const prefill = argument('prefill', 300)
  const postgres = process.argv.includes('--postgres') ? await startThrowawayPostgres() : undefined
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-burst-'))
  let service: ServiceProcess | undefined
  try {
    const buildDir = buildDirArgument() ?? (await ensureBuilt())
    service = await startServiceProcess(buildDir, {
      VAULT_DATA_DIR: dataDir,
      VAULT_DATABASE_URL: postgres ? postgres.adminUrl : `sqlite:${dataDir}/db/vault.sqlite`,
    })
    const { url } = service
    const authorization = await signInAdmin(url)
    const files = burstFiles(options)
    const random = seededRandom(options.seed + 1)
    for (let i = 0; i < prefill; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, prefill - i) }, (_, j) =>
          uploadFile(url, authorization, campaignFile(100_000 + i + j, 2_000, random)),
        ),
      )
    }
    console.error(`${prefill} models stored; the burst starts`)
    const idleMiB = service.rssMiB()
    let peakMiB = idleMiB
    const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, service!.rssMiB())), 20)
    const started = performance.now()
    const burst = await runUploadBurst(url, authorization, files, startReaderProcess(url, authorization, readers))
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    if (service.rssMiB() === 0) throw new Error(`the service is gone before the end:\n${service.output().slice(-4000)}`)
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))?.[1]) / 1024
    const unreadable = await unreadableFiles(url, authorization, burst.stored)
    const leftovers = await stagingLeftovers(url, authorization, dataDir)
    const lat = burst.reads.latenciesMs
    const ms = (value: number) => `${value.toFixed(1)} ms`
    console.log(`| Upload burst (${postgres ? 'PostgreSQL' : 'SQLite'}, seed ${options.seed}) | |`)
    console.log('|---|---|')
    console.log(
      `| uploads | ${options.uploads} (${options.totalMiB} MiB), ${readers} readers, ${prefill} models before |`,
    )
    console.log(`| burst took | ${seconds.toFixed(1)} s |`)
    console.log(`| upload answers | ${JSON.stringify(burst.uploadStatuses)} |`)
    for (const [reason, times] of Object.entries(burst.noAnswer)) console.log(`| no answer × ${times} | ${reason} |`)
    console.log(`| the service's log: ingest answers | ${JSON.stringify(loggedIngestStatuses(service.output()))} |`)
    console.log(
      `| RSS idle / peak (sampled) / VmHWM | ${idleMiB.toFixed(0)} / ${peakMiB.toFixed(0)} / ${hwm.toFixed(0)} MiB |`,
    )
    console.log(`| reader requests | ${lat.length}, answers ${JSON.stringify(burst.reads.statuses)} |`)
    console.log(
      `| reader p50 / p99 / max | ${ms(percentile(lat, 50))} / ${ms(percentile(lat, 99))} / ${ms(lat.reduce((a, b) => Math.max(a, b), 0))} |`,
    )
    console.log(`| stored / unreadable | ${burst.stored.length} / ${unreadable.length} |`)
    console.log(`| staging leftovers | ${leftovers.length} |`)
    for (const line of unreadable) console.log(`- unreadable ${line}`)
  } finally {
    await service?.stop()
    postgres?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await (process.argv[2] === '--reader-process' ? readerProcess() : main())
}
