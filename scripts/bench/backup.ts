/**
 * Backup and restore benchmark:
 * `npx tsx scripts/bench/backup.ts [vault size MiB, default 2048] [--old-build DIR] [--restore-only [ROUNDS]]`.
 *
 * Fills a vault through the API (curl -T) with G-code-like files (text that compresses like real
 * G-code), then times, on the same data directory: `tar -czf` (the baseline), tar through `pigz`
 * (when installed: `apt-get install pigz`), POST /api/v1/backups until complete with `--old-build`
 * (another build, such as `tsc -p tsconfig.build.json --outDir DIR` of a `git archive` of the commit
 * before parallel gzip: its single zlib stream) and with this build. Then POST
 * /api/v1/backups/{id}/restore of this build's archive onto a fresh install against `tar -xzf` of
 * the same archive (and tar through `pigz -d`), all in the same run, sampling each server's RSS
 * meanwhile. Build first (`npm run build`): the servers run as `npm start` runs them.
 *
 * `--restore-only [ROUNDS, default 3]` skips the timed backups: one backup by this build, then
 * ROUNDS rounds of `tar -xzf`, the restore by `--old-build` (when given) and by this build, each
 * round in turn, with the ratios taken round by round (a shared machine's speed drifts).
 *
 * `--small-files N` fills the vault with N small STL meshes (1–64 KiB, a maker's library) instead
 * of 64 MiB G-code files: the per-file costs (an fsync each, directory entries) rather than bytes.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { campaignFile } from '../campaigns/campaign-files.js'
import { seededRandom } from '../seeded-random.js'
import { type BuiltService, cpuSeconds, startBuiltService } from './built-service.js'

const args = process.argv.slice(2)
const optionValue = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 && args[at + 1] && !args[at + 1]!.startsWith('--') ? args[at + 1] : undefined
}
const oldBuild = optionValue('--old-build')
const restoreOnly = args.includes('--restore-only')
const restoreRounds = Number(optionValue('--restore-only') ?? 3)
const smallFiles = optionValue('--small-files') === undefined ? undefined : Number(optionValue('--small-files'))
const valued = new Set(['--old-build', '--restore-only', '--small-files'])
const positional = args.filter((arg, i) => !arg.startsWith('--') && !valued.has(args[i - 1] ?? ''))
const sizeMiB = Number(positional[0] ?? 2048)
const work = mkdtempSync(join(tmpdir(), 'vault-backup-bench-'))
const dataDir = join(work, 'data')
const fileMiB = 64
const hasPigz = spawnSync('sh', ['-c', 'command -v pigz']).status === 0

/** `mib` MiB of plausible G-code: moves with varying coordinates, so gzip finds what it finds in real files. */
function gcode(mib: number, seed: number): Buffer {
  const lines: string[] = []
  let size = 0
  let x = seed % 200
  while (size < mib * 1024 * 1024) {
    x = (x * 1103515245 + 12345) % 2147483648
    const line = `G1 X${((x % 25000) / 100).toFixed(3)} Y${(((x >> 8) % 25000) / 100).toFixed(3)} E${((x % 997) / 1000).toFixed(5)} F${1200 + (x % 6000)}\n`
    lines.push(line)
    size += line.length
  }
  return Buffer.from(lines.join(''))
}

/**
 * `count` distinct STL meshes of 1–64 KiB (random triangles), eight uploads at a time, then waits
 * until their thumbnails are rendered: the vault a library settles into.
 */
async function fillSmallFiles(service: BuiltService, count: number): Promise<void> {
  const random = seededRandom(38)
  let next = 0
  const uploader = async () => {
    while (next < count) {
      const file = campaignFile(2 * next++, 1024 + Math.floor(random() * 63 * 1024), random)
      const answer = await fetch(`${service.url}/api/v1/ingest/${file.name}`, {
        method: 'PUT',
        headers: { Authorization: service.authorization },
        body: new Blob([file.bytes as Uint8Array<ArrayBuffer>]),
      })
      if (!answer.ok) throw new Error(`uploading ${file.name} answered ${answer.status}: ${await answer.text()}`)
      await answer.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 8 }, uploader))
  for (;;) {
    const queue = (await (
      await fetch(`${service.url}/api/v1/analysis`, { headers: { Authorization: service.authorization } })
    ).json()) as { queued: number; running: number }
    if (queue.queued + queue.running === 0) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

/** `sizeMiB` MiB of 64 MiB G-code files. */
function fillGcode(service: BuiltService): void {
  // Generated to a file and sent with curl: building 64 MiB of text blocks this process,
  // and a fetch keep-alive socket would go stale meanwhile.
  const part = join(work, 'part.gcode')
  for (let i = 0; i < sizeMiB / fileMiB; i++) {
    writeFileSync(part, gcode(fileMiB, i))
    execFileSync('curl', [
      '-sf',
      '-o',
      '/dev/null',
      '-H',
      `Authorization: ${service.authorization}`,
      '-T',
      part,
      `${service.url}/api/v1/ingest/part-${i}.gcode`,
    ])
  }
  rmSync(part)
}

/** What the vault holds, for the report's headings. */
const vaultShape = () =>
  smallFiles === undefined
    ? `a ${sizeMiB} MiB vault (${sizeMiB / fileMiB} G-code files)`
    : `a vault of ${smallFiles} small meshes`

async function main(): Promise<void> {
  const service = await startBuiltService({ VAULT_DATA_DIR: dataDir })
  if (smallFiles === undefined) fillGcode(service)
  else await fillSmallFiles(service, smallFiles)
  await service.stop()
  execFileSync('sync')

  if (restoreOnly) return restoreRoundsOnly()

  const tarGz = timedTarCreate([])
  const pigz = hasPigz ? timedTarCreate(['--use-compress-program=pigz']) : undefined

  // The old build first, so the archive left for the restore is this build's.
  let old: Awaited<ReturnType<typeof backupWith>> | undefined
  if (oldBuild) {
    old = await backupWith(oldBuild)
    rmSync(join(dataDir, 'backups', old.backup.file_name))
  }
  const measured = await backupWith('dist')
  const backup = measured.backup
  const archive = join(dataDir, 'backups', backup.file_name)

  // Restore onto a fresh install: every byte is written, as after losing a machine.
  execFileSync('sync')
  const untar = timedTarExtract(archive, []).seconds
  const unpigz = hasPigz ? timedTarExtract(archive, ['--use-compress-program=pigz']).seconds : undefined
  const restored = await timedRestore('dist', backup)

  const vaultMiB = Number(execFileSync('du', ['-sm', dataDir]).toString().split('\t')[0])
  const mibs = (seconds: number) => (vaultMiB / seconds).toFixed(0)
  const row = (what: string, seconds: number, baseline: number, pigzSeconds?: number) =>
    `| ${what} | ${seconds.toFixed(1)} | ${mibs(seconds)} | ${(seconds / baseline).toFixed(2)} | ${pigzSeconds ? (seconds / pigzSeconds).toFixed(2) : '–'} |`
  const archiveMiB = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`
  console.log(
    `\nBackup and restore of ${vaultShape()} (${availableParallelism()} cores, node ${process.version}, ${new Date().toISOString()})\n`,
  )
  if (!hasPigz) console.log('pigz is not installed (apt-get install pigz): its rows are skipped.\n')
  console.log(
    `Archives: tar -czf ${archiveMiB(tarGz.bytes)}${pigz ? `, pigz ${archiveMiB(pigz.bytes)}` : ''}${old ? `, old build ${archiveMiB(old.backup.size)}` : ''}, backup ${archiveMiB(backup.size)}.\n`,
  )
  console.log('| measure | seconds | vault MiB/s | × tar | × pigz |')
  console.log('|---|---|---|---|---|')
  console.log(row('tar -czf of db, blobs, thumbs (baseline)', tarGz.seconds, tarGz.seconds, pigz?.seconds))
  if (pigz) console.log(row('tar through pigz of the same', pigz.seconds, tarGz.seconds, pigz.seconds))
  if (old)
    console.log(row(`POST /api/v1/backups until complete, ${oldBuild}`, old.seconds, tarGz.seconds, pigz?.seconds))
  console.log(row('POST /api/v1/backups until complete', measured.seconds, tarGz.seconds, pigz?.seconds))
  console.log(row('tar -xzf of the archive, then sync (baseline)', untar, untar, unpigz))
  if (unpigz) console.log(row('tar through pigz -d of the archive, then sync', unpigz, untar, unpigz))
  console.log(row('POST /api/v1/backups/{id}/restore onto a fresh install, then sync', restored.seconds, untar, unpigz))
  const rss = (what: string, sample: { before: number; peak: number }) =>
    `${what} ${sample.before.toFixed(0)} → peak ${sample.peak.toFixed(0)} MiB`
  console.log(
    `\nService RSS: ${old ? `${rss('old build backup', old)}; ` : ''}${rss('backup', measured)}; ${rss('restore', restored)}.`,
  )
  rmSync(work, { recursive: true, force: true })
}

/**
 * One backup by this build, then `restoreRounds` rounds of `tar -xzf`, the old build's restore and
 * this build's, each printed with its ratios to the same round's `tar -xzf` and old build; then the medians.
 */
async function restoreRoundsOnly(): Promise<void> {
  const { backup } = await backupWith('dist')
  const archive = join(dataDir, 'backups', backup.file_name)
  const builds = oldBuild ? [oldBuild, 'dist'] : ['dist']
  const ratios = new Map(builds.map((build) => [build, [] as number[]]))
  const againstOld: number[] = []
  console.log(
    `\nRestore of ${vaultShape()} (${(backup.size / 1048576).toFixed(0)} MiB archive; ${availableParallelism()} cores, node ${process.version}, ${new Date().toISOString()})\n`,
  )
  const columns = ['round', 'tar -xzf s (CPU s)', ...builds.map((build) => `${build} s (× tar, CPU s, peak RSS)`)]
  if (oldBuild) columns.push('dist × old build')
  console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => '---|').join('')}`)
  for (let round = 1; round <= restoreRounds; round++) {
    const untar = timedTarExtract(archive, [])
    const cells = [String(round), `${untar.seconds.toFixed(1)} (${untar.cpu.toFixed(1)})`]
    const seconds: number[] = []
    for (const build of builds) {
      const restored = await timedRestore(build, backup)
      seconds.push(restored.seconds)
      ratios.get(build)!.push(restored.seconds / untar.seconds)
      cells.push(
        `${restored.seconds.toFixed(1)} (${(restored.seconds / untar.seconds).toFixed(2)}, ${restored.cpu.toFixed(1)}, ${restored.peak.toFixed(0)} MiB)`,
      )
    }
    if (oldBuild) {
      againstOld.push(seconds[1]! / seconds[0]!)
      cells.push((seconds[1]! / seconds[0]!).toFixed(2))
    }
    console.log(`| ${cells.join(' | ')} |`)
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(2)
  const medians = builds.map((build) => `${build} ${median(ratios.get(build)!)}`)
  if (oldBuild) medians.push(`dist × old build ${median(againstOld)}`)
  console.log(`\nMedians: × tar -xzf ${medians.join(', ')}.`)
  rmSync(work, { recursive: true, force: true })
}

/**
 * POST /api/v1/backups/{id}/restore of `backup` by the service of `buildDir` onto a fresh install
 * (every byte is written, as after losing a machine), then sync: timed, with its RSS.
 */
async function timedRestore(buildDir: string, backup: { id: string; file_name: string }) {
  const freshDir = join(work, 'fresh')
  rmSync(freshDir, { recursive: true, force: true })
  const fresh = await startBuiltService({ VAULT_DATA_DIR: freshDir }, buildDir)
  try {
    copyFileSync(join(dataDir, 'backups', backup.file_name), join(freshDir, 'backups', backup.file_name))
    execFileSync('sync')
    return await sampleRss(fresh, async () => {
      const response = await fetch(`${fresh.url}/api/v1/backups/${backup.id}/restore`, {
        method: 'POST',
        headers: { Authorization: fresh.authorization },
      })
      const body = (await response.json()) as Record<string, unknown>
      if (response.status !== 200) throw new Error(`restore answered ${response.status}: ${JSON.stringify(body)}`)
      execFileSync('sync')
      return body
    })
  } finally {
    await fresh.stop()
  }
}

/** A backup by the service of `buildDir` on the bench's data directory, timed, with its RSS. */
async function backupWith(buildDir: string) {
  const service = await startBuiltService({ VAULT_DATA_DIR: dataDir }, buildDir)
  const auth = { Authorization: service.authorization }
  try {
    const measured = await sampleRss(service, async () => {
      const created = (await (
        await fetch(`${service.url}/api/v1/backups`, { method: 'POST', headers: auth })
      ).json()) as { id: string }
      let backup: { id: string; status: string; size: number; file_name: string; error?: string }
      do {
        await new Promise((resolve) => setTimeout(resolve, 100))
        backup = (await (
          await fetch(`${service.url}/api/v1/backups/${created.id}`, { headers: auth })
        ).json()) as typeof backup
      } while (backup.status === 'running')
      return backup
    })
    if (measured.result.status !== 'complete')
      throw new Error(`backup ${measured.result.status}: ${measured.result.error}`)
    return { ...measured, backup: measured.result }
  } finally {
    await service.stop()
  }
}

/** `tar -c` (through `compressor` options, gzip by default) of the data directory, then sync: seconds and bytes. */
function timedTarCreate(compressor: string[]): { seconds: number; bytes: number } {
  const file = join(work, 'baseline.tar.gz')
  execFileSync('sync')
  const started = process.hrtime.bigint()
  execFileSync('tar', [
    ...(compressor.length > 0 ? compressor : ['-z']),
    '-cf',
    file,
    '-C',
    dataDir,
    'db',
    'blobs',
    'thumbs',
  ])
  execFileSync('sync')
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const bytes = statSync(file).size
  rmSync(file)
  return { seconds, bytes }
}

/**
 * `tar -x` (through `compressor` options, gzip by default) of `archive` into an empty directory,
 * then sync: seconds, and the CPU seconds of tar and its decompressor.
 */
function timedTarExtract(archive: string, compressor: string[]): { seconds: number; cpu: number } {
  const target = join(work, 'untar')
  mkdirSync(target)
  execFileSync('sync')
  const cpuBefore = childrenCpuSeconds()
  const started = process.hrtime.bigint()
  execFileSync('tar', [...(compressor.length > 0 ? compressor : ['-z']), '-xf', archive, '-C', target])
  execFileSync('sync')
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = childrenCpuSeconds() - cpuBefore
  rmSync(target, { recursive: true })
  return { seconds, cpu }
}

/** User + system CPU seconds of this process's waited-for children and theirs (/proc/self/stat cutime, cstime). */
function childrenCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

/** Runs `work`, timing it, counting the service's CPU seconds and sampling its RSS every 50 ms. */
async function sampleRss<T>(
  service: BuiltService,
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; cpu: number; before: number; peak: number }> {
  const before = service.rssMiB()
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, service.rssMiB())), 50)
  const cpuBefore = cpuSeconds(service.pid)
  const started = process.hrtime.bigint()
  try {
    const result = await work()
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    return { result, seconds, cpu: cpuSeconds(service.pid) - cpuBefore, before, peak }
  } finally {
    clearInterval(sampler)
  }
}

await main()
