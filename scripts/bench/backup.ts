/**
 * Backup benchmark: `npx tsx scripts/bench/backup.ts [vault size MiB, default 2048]`.
 *
 * Fills a vault through the API (curl -T) with G-code-like files (text that compresses like real
 * G-code), then times POST /api/v1/backups until complete against `tar -czf` of the same
 * data directory in the same run, sampling the server's RSS meanwhile. Build first
 * (`npm run build`): the server runs as `npm start` runs it.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBuiltService } from './built-service.js'

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
    execFileSync('curl', ['-sf', '-o', '/dev/null', '-H', `Authorization: ${auth.Authorization}`, '-T', part, `${url}/api/v1/ingest/part-${i}.gcode`])
  }
  rmSync(part)
  execFileSync('sync')

  const tarStarted = process.hrtime.bigint()
  execFileSync('tar', ['-czf', join(work, 'baseline.tar.gz'), '-C', dataDir, 'db', 'blobs', 'thumbs'])
  execFileSync('sync')
  const tarSeconds = Number(process.hrtime.bigint() - tarStarted) / 1e9
  const tarBytes = readFileSync(join(work, 'baseline.tar.gz')).length
  rmSync(join(work, 'baseline.tar.gz'))

  let peak = service.rssMiB()
  const before = peak
  const sampler = setInterval(() => (peak = Math.max(peak, service.rssMiB())), 50)
  const started = process.hrtime.bigint()
  const created = (await (await fetch(`${url}/api/v1/backups`, { method: 'POST', headers: auth })).json()) as { id: string }
  let backup: { status: string; size: number }
  do {
    await new Promise((resolve) => setTimeout(resolve, 100))
    backup = (await (await fetch(`${url}/api/v1/backups/${created.id}`, { headers: auth })).json()) as typeof backup
  } while (backup.status === 'running')
  const backupSeconds = Number(process.hrtime.bigint() - started) / 1e9
  clearInterval(sampler)
  service.stop()
  if (backup.status !== 'complete') throw new Error(`backup ${backup.status}`)

  const mibs = (s: number) => (sizeMiB / s).toFixed(0)
  console.log(`\nBackup of a ${sizeMiB} MiB vault (${sizeMiB / fileMiB} G-code files; node ${process.version}, ${new Date().toISOString()})\n`)
  console.log('| measure | seconds | MiB/s | archive MiB | ratio to tar -czf |')
  console.log('|---|---|---|---|---|')
  console.log(`| tar -czf of db, blobs, thumbs (baseline) | ${tarSeconds.toFixed(1)} | ${mibs(tarSeconds)} | ${(tarBytes / 1048576).toFixed(0)} | 1.00 |`)
  console.log(`| POST /api/v1/backups until complete | ${backupSeconds.toFixed(1)} | ${mibs(backupSeconds)} | ${(backup.size / 1048576).toFixed(0)} | ${(backupSeconds / tarSeconds).toFixed(2)} |`)
  console.log(`\nServer RSS: ${before.toFixed(0)} MiB before the backup, peak ${peak.toFixed(0)} MiB during it.`)
  rmSync(work, { recursive: true, force: true })
}

await main()
