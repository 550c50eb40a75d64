/**
 * Backup and restore benchmark: `npx tsx scripts/bench/backup.ts [vault size MiB, default 2048]`.
 *
 * Fills a vault through the API (curl -T) with G-code-like files (text that compresses like real
 * G-code), then times POST /api/v1/backups until complete against `tar -czf` of the same
 * data directory, and POST /api/v1/backups/{id}/restore of that archive onto a fresh install
 * against `tar -xzf` of the same archive, all in the same run, sampling each server's RSS
 * meanwhile. Build first (`npm run build`): the servers run as `npm start` runs them.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BuiltService, startBuiltService } from './built-service.js'

const sizeMiB = Number(process.argv[2] ?? 2048)
const work = mkdtempSync(join(tmpdir(), 'vault-backup-bench-'))
const dataDir = join(work, 'data')
const fileMiB = 64

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

async function main(): Promise<void> {
  const service = await startBuiltService({ VAULT_DATA_DIR: dataDir })
  const { url } = service
  const auth = { Authorization: service.authorization }
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
      `Authorization: ${auth.Authorization}`,
      '-T',
      part,
      `${url}/api/v1/ingest/part-${i}.gcode`,
    ])
  }
  rmSync(part)
  execFileSync('sync')

  const tarStarted = process.hrtime.bigint()
  execFileSync('tar', ['-czf', join(work, 'baseline.tar.gz'), '-C', dataDir, 'db', 'blobs', 'thumbs'])
  execFileSync('sync')
  const tarSeconds = Number(process.hrtime.bigint() - tarStarted) / 1e9
  const tarBytes = readFileSync(join(work, 'baseline.tar.gz')).length
  rmSync(join(work, 'baseline.tar.gz'))

  const measured = await sampleRss(service, async () => {
    const created = (await (await fetch(`${url}/api/v1/backups`, { method: 'POST', headers: auth })).json()) as {
      id: string
    }
    let backup: { id: string; status: string; size: number; file_name: string }
    do {
      await new Promise((resolve) => setTimeout(resolve, 100))
      backup = (await (await fetch(`${url}/api/v1/backups/${created.id}`, { headers: auth })).json()) as typeof backup
    } while (backup.status === 'running')
    return backup
  })
  const backup = measured.result
  service.stop()
  if (backup.status !== 'complete') throw new Error(`backup ${backup.status}`)
  const archive = join(dataDir, 'backups', backup.file_name)

  // Restore onto a fresh install: every byte is written, as after losing a machine.
  execFileSync('sync')
  const untarDir = join(work, 'untar')
  mkdirSync(untarDir)
  const untarStarted = process.hrtime.bigint()
  execFileSync('tar', ['-xzf', archive, '-C', untarDir])
  execFileSync('sync')
  const untarSeconds = Number(process.hrtime.bigint() - untarStarted) / 1e9
  rmSync(untarDir, { recursive: true })

  const freshDir = join(work, 'fresh')
  const fresh = await startBuiltService({ VAULT_DATA_DIR: freshDir })
  copyFileSync(archive, join(freshDir, 'backups', backup.file_name))
  execFileSync('sync')
  const restored = await sampleRss(fresh, async () => {
    const response = await fetch(`${fresh.url}/api/v1/backups/${backup.id}/restore`, {
      method: 'POST',
      headers: { Authorization: fresh.authorization },
    })
    const body = (await response.json()) as Record<string, unknown>
    if (response.status !== 200) throw new Error(`restore answered ${response.status}: ${JSON.stringify(body)}`)
    execFileSync('sync')
    return body
  })
  fresh.stop()

  const mibs = (s: number) => (sizeMiB / s).toFixed(0)
  const row = (what: string, seconds: number, baseline: number) =>
    `| ${what} | ${seconds.toFixed(1)} | ${mibs(seconds)} | ${(seconds / baseline).toFixed(2)} |`
  console.log(
    `\nBackup and restore of a ${sizeMiB} MiB vault (${sizeMiB / fileMiB} G-code files; node ${process.version}, ${new Date().toISOString()})\n`,
  )
  console.log(
    `Archives: tar -czf ${(tarBytes / 1048576).toFixed(0)} MiB, backup ${(backup.size / 1048576).toFixed(0)} MiB.\n`,
  )
  console.log('| measure | seconds | vault MiB/s | ratio to baseline |')
  console.log('|---|---|---|---|')
  console.log(row('tar -czf of db, blobs, thumbs (baseline)', tarSeconds, tarSeconds))
  console.log(row('POST /api/v1/backups until complete', measured.seconds, tarSeconds))
  console.log(row('tar -xzf of the archive, then sync (baseline)', untarSeconds, untarSeconds))
  console.log(row('POST /api/v1/backups/{id}/restore onto a fresh install, then sync', restored.seconds, untarSeconds))
  console.log(
    `\nService RSS: backup ${measured.before.toFixed(0)} → peak ${measured.peak.toFixed(0)} MiB; restore ${restored.before.toFixed(0)} → peak ${restored.peak.toFixed(0)} MiB.`,
  )
  rmSync(work, { recursive: true, force: true })
}

/** Runs `work`, timing it and sampling the service's RSS every 50 ms. */
async function sampleRss<T>(
  service: BuiltService,
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; before: number; peak: number }> {
  const before = service.rssMiB()
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, service.rssMiB())), 50)
  const started = process.hrtime.bigint()
  try {
    const result = await work()
    return { result, seconds: Number(process.hrtime.bigint() - started) / 1e9, before, peak }
  } finally {
    clearInterval(sampler)
  }
}

await main()
