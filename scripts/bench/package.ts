/**
 * Package benchmark: `npm run build && npx tsx scripts/bench/package.ts [size MiB, default 1024]`.
 *
 * A model holding one random file of that size (stored with PUT), then in the same run, each with
 * curl to /dev/null over loopback, the service's RSS sampled every 20 ms:
 * 1. the file downloaded alone (GET /api/v1/files/{id}/content), the baseline;
 * 2. the model's package (GET /api/v1/models/{id}/package), the same bytes inside a zip;
 * 3. the package read by a slow client (2 MiB/s for 6 s, then cut off): memory while it lags.
 * Prints a Markdown table for docs/benchmarks.md.
 */

import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBuiltService, timedCurl } from './built-service.js'
import { writeRandomFile } from './random-file.js'

const sizeMiB = Number(process.argv[2] ?? 1024)
const work = mkdtempSync(join(tmpdir(), 'vault-bench-'))

async function main(): Promise<void> {
  const file = join(work, 'big.bin')
  writeRandomFile(file, sizeMiB)
  const vault = await startBuiltService({ VAULT_DATA_DIR: join(work, 'data') })
  const auth = ['-H', `Authorization: ${vault.authorization}`]
  const stored = JSON.parse(
    execFileSync('curl', ['-sf', ...auth, '-T', file, `${vault.url}/api/v1/ingest/big.bin`], { encoding: 'utf8' }),
  ) as { file: { id: string }; model: { id: string } }
  const idleRss = vault.rssMiB()
  const alone = await timedCurl(vault, [...auth, `${vault.url}/api/v1/files/${stored.file.id}/content`])
  const packageUrl = `${vault.url}/api/v1/models/${stored.model.id}/package`
  const packaged = await timedCurl(vault, [...auth, packageUrl])
  // curl gives up after its time limit (exit 28): the vault must not have read ahead meanwhile.
  const slow = await timedCurl(vault, [...auth, '--limit-rate', '2M', '--max-time', '6', packageUrl], [28])
  vault.stop()

  const mibs = (seconds: number) => (sizeMiB / seconds).toFixed(0)
  console.log(
    `\nPackage of one ${sizeMiB} MiB file over loopback (node ${process.version}, ${new Date().toISOString()})\n`,
  )
  console.log('| download | seconds | MiB/s | ratio to the file alone | peak RSS MiB |')
  console.log('|---|---|---|---|---|')
  console.log(
    `| the file alone | ${alone.seconds.toFixed(2)} | ${mibs(alone.seconds)} | 1.00 | ${alone.peakMiB.toFixed(0)} |`,
  )
  console.log(
    `| the model's package | ${packaged.seconds.toFixed(2)} | ${mibs(packaged.seconds)} | ${(packaged.seconds / alone.seconds).toFixed(2)} | ${packaged.peakMiB.toFixed(0)} |`,
  )
  console.log(`| the package at 2 MiB/s, cut off after 6 s | | | | ${slow.peakMiB.toFixed(0)} |`)
  console.log(`\nServer RSS before the downloads: ${idleRss.toFixed(0)} MiB.`)
  rmSync(work, { recursive: true, force: true })
}

await main()
