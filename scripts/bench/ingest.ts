/**
 * Ingest benchmark: `npx tsx scripts/bench/ingest.ts [size MiB, default 1024]`.
 *
 * 1. One large upload over loopback (curl, PUT and multipart), timed against `sha256sum` plus
 *    `cp` of the same bytes in the same run; the server's peak RSS (VmHWM) during it.
 * 2. Small uploads per second (1 KiB each, 8 at a time) against a bare Hono route on
 *    @hono/node-server that only reads the body, in the same run.
 * Prints a Markdown table for docs/benchmarks.md.
 */

import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { startBuiltService, timedCurl } from './built-service.js'
import { writeRandomFile } from './random-file.js'

const sizeMiB = Number(process.argv[2] ?? 1024)
const work = mkdtempSync(join(tmpdir(), 'vault-bench-'))
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9
const time = (run: () => void) => {
  const started = process.hrtime.bigint()
  run()
  return seconds(started)
}

async function main(): Promise<void> {
  const file = join(work, 'big.gcode')
  writeRandomFile(file, sizeMiB)
  // Flush the new file first, or the baseline competes with its write-back; best of two runs.
  execFileSync('sync')
  const best = (run: () => void) => Math.min(time(run), time(run))
  const sha = best(() => execFileSync('sha256sum', [file]))
  const copy = best(() => {
    execFileSync('cp', [file, join(work, 'copy.bin')])
    execFileSync('sync')
  })
  rmSync(join(work, 'copy.bin'))

  const vault = await startBuiltService({ VAULT_DATA_DIR: join(work, 'data') })
  const auth = `Authorization: ${vault.authorization}`
  const idleRss = vault.rssMiB()
  const put = await timedCurl(vault, ['-H', auth, '-T', file, `${vault.url}/api/v1/ingest/big-put.gcode`])
  // Different bytes for the multipart run, so it is not answered as a duplicate.
  const fd = openSync(file, 'r+')
  writeSync(fd, Buffer.from('multipart'), 0, 9, 0)
  closeSync(fd)
  const multipart = await timedCurl(vault, ['-H', auth, '-F', `file=@${file}`, `${vault.url}/api/v1/ingest`])

  const small = async (url: string, path: string, headers: Record<string, string>) => {
    const started = process.hrtime.bigint()
    let next = 0
    const count = 400
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const i = next++
          const res = await fetch(`${url}${path}${i}.gcode`, { method: 'PUT', headers, body: randomBytes(1024) })
          if (res.status >= 300) throw new Error(`upload ${i}: ${res.status}`)
          await res.arrayBuffer()
        }
      }),
    )
    return count / seconds(started)
  }
  const vaultRate = await small(vault.url, '/api/v1/ingest/small-', { Authorization: vault.authorization })
  vault.stop()

  const bare = new Hono().put('/small/:name', async (c) =>
    c.json({ bytes: (await c.req.arrayBuffer()).byteLength }, 201),
  )
  const bareServer = serve({ fetch: bare.fetch, hostname: '127.0.0.1', port: 0 })
  await new Promise((resolve) => bareServer.once('listening', resolve))
  const barePort = (bareServer.address() as { port: number }).port
  const bareRate = await small(`http://127.0.0.1:${barePort}`, '/small/', {})
  bareServer.close()

  const baseline = sha + copy
  const mibs = (s: number) => (sizeMiB / s).toFixed(0)
  console.log(`\nIngest of ${sizeMiB} MiB over loopback (node ${process.version}, ${new Date().toISOString()})\n`)
  console.log('| measure | seconds | MiB/s | ratio to sha256sum + cp |')
  console.log('|---|---|---|---|')
  console.log(`| sha256sum | ${sha.toFixed(2)} | ${mibs(sha)} | |`)
  console.log(`| cp | ${copy.toFixed(2)} | ${mibs(copy)} | |`)
  console.log(`| sha256sum + cp (baseline) | ${baseline.toFixed(2)} | ${mibs(baseline)} | 1.00 |`)
  for (const [name, run] of [
    ['PUT /api/v1/ingest/{name} (curl -T)', put],
    ['POST /api/v1/ingest multipart (curl -F)', multipart],
  ] as const) {
    console.log(
      `| ${name} | ${run.seconds.toFixed(2)} | ${mibs(run.seconds)} | ${(run.seconds / baseline).toFixed(2)} |`,
    )
  }
  console.log(
    `\nServer RSS: ${idleRss.toFixed(0)} MiB before; peak during the PUT ${put.peakMiB.toFixed(0)} MiB, during the multipart upload ${multipart.peakMiB.toFixed(0)} MiB.`,
  )
  console.log(
    `\nSmall uploads (1 KiB, 8 concurrent, 400 each): vault ${vaultRate.toFixed(0)}/s; bare Hono PUT route ${bareRate.toFixed(0)}/s; ratio ${(bareRate / vaultRate).toFixed(1)}x.`,
  )
  rmSync(work, { recursive: true, force: true })
}

await main()
