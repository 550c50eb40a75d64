/**
 * Folder import benchmark:
 * `npx tsx scripts/bench/folder-import.ts [files, default 10000] [--old-build DIR] [--slicer-sample N, default 400]
 *   [--concurrency N] [--ui-probe] [--until-stored]`
 * (after `npm run build`: the service and the CLI run as built; `--old-build` names another build,
 * `npx tsc -p tsconfig.build.json --outDir DIR`, to time in the same run; `--concurrency` is the
 * import command's; `--ui-probe` times the library's first page, as the web UI asks for it, every
 * 250 ms during this build's import; `--until-stored` does not wait for the analysis).
 *
 * A folder of small binary STL meshes (about 1 kB each, five per model folder), stored into a fresh
 * vault by `model-vault import` (its default concurrency): files/s until the last answer (durable
 * storage), then the seconds until the background analysis has rendered every thumbnail, and the
 * service's peak RSS (and the import command's own). Baselines in the same run: the same import by the older build, when given;
 * one file at a time by `curl -T` to PUT /api/v1/ingest/{filename}, as a shell loop would (on the
 * first 1,000 files); and `prusa-slicer --info` over a sample of the same meshes, two at a time
 * (both cores), extrapolated to all of them. Prints Markdown rows for docs/benchmarks.md.
 */

import { execFile, execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { campaignFile } from '../campaigns/campaign-files.js'
import { seededRandom } from '../seeded-random.js'
import { type BuiltService, startBuiltService } from './built-service.js'

const args = process.argv.slice(2)
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const valued = new Set(['--old-build', '--slicer-sample', '--concurrency'])
const fileCount = Number(args.find((arg, i) => !arg.startsWith('--') && !valued.has(args[i - 1] ?? '')) ?? 10_000)
const oldBuild = option('--old-build')
const slicerSample = Number(option('--slicer-sample') ?? 400)
const concurrency = option('--concurrency')
const uiProbe = args.includes('--ui-probe')
const untilStored = args.includes('--until-stored')
const curlFiles = Math.min(fileCount, 1_000)
const filesPerModel = 5
const work = mkdtempSync(join(tmpdir(), 'vault-bench-import-'))
const tree = join(work, 'tree')
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9

/** `Model 00001/part-2.stl`…: distinct meshes (random triangles), so no upload matches another's model. */
function writeTree(): string[] {
  const random = seededRandom(16)
  const paths: string[] = []
  for (let i = 0; i < fileCount; i++) {
    const folder = join(tree, `Model ${String(Math.floor(i / filesPerModel)).padStart(5, '0')}`)
    if (i % filesPerModel === 0) mkdirSync(folder, { recursive: true })
    // Even indices are STL meshes; odd ones would be G-code.
    const file = campaignFile(2 * i, 1_000, random)
    writeFileSync(join(folder, file.name), file.bytes)
    paths.push(join(folder, file.name))
  }
  return paths
}

/** A fresh vault on its own data directory, with an API key of the scopes the import needs. */
async function freshVault(name: string, build = 'dist'): Promise<{ service: BuiltService; key: string }> {
  const service = await startBuiltService({ VAULT_DATA_DIR: join(work, name) }, build)
  const answer = await fetch(`${service.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: service.authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['read', 'upload', 'manage'] }),
  })
  return { service, key: ((await answer.json()) as { key: string }).key }
}

/** Files the vault holds, asked with the key (a sign-in token would expire during a long run) by curl, as a pooled fetch connection may have idled out. */
const filesIn = (service: BuiltService, key: string) => {
  const stats = execFileSync('curl', ['-sf', '-H', `X-Api-Key: ${key}`, `${service.url}/api/v1/models/stats`])
  return (JSON.parse(stats.toString()) as { totals: { files: number } }).totals.files
}

interface Run {
  /** Until the last file's answer. */
  seconds: number
  stored: number
  /** From the start until the background analysis had nothing left; null for a build without the queue. */
  analysedSeconds: number | null
  peakMiB: number
  /** The library's first page while the import ran (`--ui-probe`): milliseconds at the 50th and 95th percentile, and the most. */
  library?: { p50: number; p95: number; max: number; asked: number }
}

/** Asks for the library's first page every 250 ms, one request at a time, until stopped: the latencies (a request the service closed is not counted). */
function probeLibrary(service: BuiltService, key: string) {
  const latencies: number[] = []
  let stopped = false
  const probing = (async () => {
    while (!stopped) {
      const asked = process.hrtime.bigint()
      // As the web UI opens the library: 48 models, the most recently updated first.
      const answer = await fetch(`${service.url}/api/v1/models?limit=48&sort=updated`, {
        headers: { 'X-Api-Key': key },
      }).catch(() => undefined)
      await answer?.arrayBuffer()
      if (answer?.ok) latencies.push(seconds(asked) * 1000)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  })()
  return async () => {
    stopped = true
    await probing
    const sorted = latencies.sort((a, b) => a - b)
    const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0
    return { p50: at(0.5), p95: at(0.95), max: at(1), asked: sorted.length }
  }
}

/** Polls `GET /api/v1/analysis` until nothing waits; the seconds since `started`, or null where there is no such route. */
async function analysisDone(service: BuiltService, key: string, started: bigint): Promise<number | null> {
  for (;;) {
    // A pooled connection the service closed as idle fails once: ask again on a new one.
    const answer = await fetch(`${service.url}/api/v1/analysis`, { headers: { 'X-Api-Key': key } }).catch(() =>
      fetch(`${service.url}/api/v1/analysis`, { headers: { 'X-Api-Key': key } }),
    )
    if (answer.status === 404) return null
    const queue = (await answer.json()) as { queued: number; running: number }
    if (queue.queued + queue.running === 0) return seconds(started)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Times `upload` into a fresh vault of `build`: until the last answer, until the analysis is done, and peak RSS. */
async function timed(
  name: string,
  upload: (service: BuiltService, key: string) => Promise<void>,
  build?: string,
  options: { probe?: boolean } = {},
) {
  const { service, key } = await freshVault(name, build)
  let peakMiB = 0
  const sampler = setInterval(() => {
    peakMiB = Math.max(peakMiB, service.rssMiB())
  }, 20)
  try {
    const started = process.hrtime.bigint()
    const probed = options.probe ? probeLibrary(service, key) : undefined
    await upload(service, key)
    const uploaded = seconds(started)
    const library = await probed?.()
    const analysedSeconds = untilStored ? null : await analysisDone(service, key, started)
    const run: Run = { seconds: uploaded, stored: filesIn(service, key), analysedSeconds, peakMiB, library }
    console.error(name, JSON.stringify(run))
    return run
  } finally {
    clearInterval(sampler)
    await service.stop()
  }
}

/** The import command's own peak RSS of the last run, MiB (sampled every 20 ms). */
let commandPeakMiB = 0

const importCommand = (build: string) => (service: BuiltService, key: string) =>
  new Promise<void>((resolve, reject) => {
    const command = spawn(
      process.execPath,
      [
        `${build}/src/cli/cli.js`,
        'import',
        '--state',
        join(work, `${build.replaceAll('/', '_')}.jsonl`),
        ...(concurrency ? ['--concurrency', concurrency] : []),
        tree,
      ],
      {
        env: { ...process.env, MODEL_VAULT_URL: service.url, MODEL_VAULT_API_KEY: key },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    commandPeakMiB = 0
    const sampler = setInterval(() => {
      commandPeakMiB = Math.max(commandPeakMiB, rssMiBOf(command.pid as number) ?? 0)
    }, 20)
    command.on('exit', (code) => {
      clearInterval(sampler)
      if (code === 0) resolve()
      else reject(new Error(`model-vault import exited ${code}`))
    })
  })

/** A running process's RSS in MiB; undefined once it has exited (a zombie's status has no VmRSS). */
function rssMiBOf(pid: number): number | undefined {
  try {
    const kB = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kB === undefined ? undefined : Number(kB) / 1024
  } catch {
    return undefined
  }
}

const curlEach = (paths: string[]) => async (service: BuiltService, key: string) => {
  for (const path of paths) {
    const name = encodeURIComponent(path.slice(path.lastIndexOf('/') + 1))
    // Awaited, not synchronous: the RSS sampler keeps running meanwhile.
    await promisify(execFile)('curl', [
      '-sf',
      '-o',
      '/dev/null',
      '-H',
      `X-Api-Key: ${key}`,
      '-T',
      path,
      `${service.url}/api/v1/ingest/${name}`,
    ])
  }
}

/** `prusa-slicer --info` over every `step`-th mesh, as many at once as there are cores: seconds per file. */
async function slicerSecondsPerFile(paths: string[]): Promise<number> {
  const sample = paths.filter((path) => path.endsWith('.stl')).slice(0, slicerSample)
  const run = promisify(execFile)
  const started = process.hrtime.bigint()
  let next = 0
  await Promise.all(
    Array.from({ length: availableParallelism() }, async () => {
      // It reads every mesh, and refuses some of these random-triangle ones after reading: the time is what counts.
      while (next < sample.length) await run('prusa-slicer', ['--info', sample[next++] as string]).catch(() => {})
    }),
  )
  return seconds(started) / sample.length
}

async function main(): Promise<void> {
  const paths = writeTree()
  execFileSync('sync')
  const folders = readdirSync(tree).length
  const imported = await timed('import', importCommand('dist'), undefined, { probe: uiProbe })
  const importedCommandMiB = commandPeakMiB
  const older = oldBuild ? await timed('import-old', importCommand(oldBuild), oldBuild) : undefined
  const curled = await timed('curl', curlEach(paths.slice(0, curlFiles)))
  const slicerAll = (await slicerSecondsPerFile(paths)) * fileCount
  const rate = (run: Run, files = fileCount) => files / run.seconds
  const curlRate = rate(curled, curlFiles)
  const row = (label: string, run: Run, files = fileCount) =>
    `| ${label} | ${run.stored.toLocaleString('en')} | ${run.seconds.toFixed(1)} | ${rate(run, files).toFixed(1)} | ${(rate(run, files) / curlRate).toFixed(2)} | ${run.analysedSeconds?.toFixed(1) ?? '–'} | ${run.analysedSeconds ? (run.analysedSeconds / slicerAll).toFixed(2) : '–'} | ${run.peakMiB.toFixed(0)} |`
  // Rendering runs on one reader thread per core left for it: files per second per core.
  const renderRate = imported.analysedSeconds ? fileCount / imported.analysedSeconds : 0
  console.log(
    [
      `${fileCount.toLocaleString('en')} files of about 1 kB in ${folders.toLocaleString('en')} model folders, ${availableParallelism()} cores, Node ${process.version}, ${new Date().toISOString()}`,
      '',
      '| Upload | files stored | seconds to last answer | files/s | × curl | seconds until analysed | × `prusa-slicer --info` | peak RSS MiB |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      row(`\`model-vault import DIR\` (concurrency ${concurrency ?? 'default'})`, imported),
      ...(older ? [row(`\`model-vault import DIR\`, ${oldBuild}`, older)] : []),
      row(`\`curl -T\` per file, one at a time, first ${curlFiles.toLocaleString('en')}`, curled, curlFiles),
      '',
      `\`prusa-slicer --info\` on ${Math.min(slicerSample, fileCount / 2)} of the meshes, ${availableParallelism()} at once: ${(slicerAll / fileCount).toFixed(3)} s per file, ${slicerAll.toFixed(0)} s for all ${fileCount.toLocaleString('en')}.`,
      `The import command's own peak RSS: ${importedCommandMiB.toFixed(0)} MiB.`,
      ...(imported.analysedSeconds
        ? [`Thumbnails from the start of the import until the last was rendered: ${renderRate.toFixed(1)} files/s.`]
        : []),
      ...(imported.library
        ? [
            `The library's first page during the import (${imported.library.asked} asked): p50 ${imported.library.p50.toFixed(0)} ms, p95 ${imported.library.p95.toFixed(0)} ms, most ${imported.library.max.toFixed(0)} ms.`,
          ]
        : []),
    ].join('\n'),
  )
}

try {
  await main()
} finally {
  rmSync(work, { recursive: true, force: true })
}
