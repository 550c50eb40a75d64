/**
 * The writers and pollers of the concurrent load benchmark (scripts/bench/concurrent-load.ts),
 * run in the benchmark's own process: uploaders of small STL and G-code files (some new, some
 * sent before: the dedup path), the printer dashboard's polling of fake printers on real sockets,
 * and backups one after another. Every request is recorded in the phase's tallies.
 */

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { fakeMoonraker } from '../../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakeOctoPrint } from '../../src/adapters/printers/octoprint/octoprint.fake.js'
import { fakePrusaLink } from '../../src/adapters/printers/prusalink/prusalink.fake.js'
import { type CampaignFile, campaignFile } from '../campaigns/campaign-files.js'
import { seededRandom } from '../seeded-random.js'
import { type Tallies, timedRequest } from './load-tally.js'

export const uploadRoutes = { fresh: 'POST /ingest (new file)', duplicate: 'POST /ingest (duplicate)' }
export const printerRoutes = { list: 'GET /printers', one: 'GET /printers/{id}' }
export const backupRoutes = { start: 'POST /backups', poll: 'GET /backups/{id}' }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** Runs `count` loops of `step` until `stopped()`; each loop has a seeded random of its own. */
export async function runLoops(
  count: number,
  stopped: () => boolean,
  step: (random: () => number) => Promise<void>,
  seed: number,
): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, loop) => {
      const random = seededRandom(seed + loop)
      while (!stopped()) await step(random)
    }),
  )
}

/** The files sent so far, which duplicates are drawn from, and the index of the next new one. */
export interface UploadPool {
  sent: CampaignFile[]
  next: number
}

/**
 * One upload as the web UI makes it (multipart, field `file`): a file sent before with
 * probability `duplicateShare` (answered 200, nothing stored), else a new STL or G-code file of
 * 20–300 KiB (answered 201); then a pause of 0.5–1.5 × `thinkMs`.
 */
export async function uploadOnce(
  target: { url: string; authorization: string; tallies: Tallies },
  pool: UploadPool,
  duplicateShare: number,
  thinkMs: number,
  random: () => number,
): Promise<void> {
  const duplicate = pool.sent.length > 0 && random() < duplicateShare
  const file = duplicate
    ? pool.sent[Math.floor(random() * pool.sent.length)]!
    : campaignFile(pool.next++, 20_480 + Math.floor(random() * 286_720), random)
  const form = new FormData()
  form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name)
  const route = duplicate ? uploadRoutes.duplicate : uploadRoutes.fresh
  const answer = await timedRequest(target.tallies, route, `${target.url}/api/v1/ingest`, {
    method: 'POST',
    headers: { Authorization: target.authorization },
    body: form,
  })
  // Only files the vault holds are drawn as duplicates; the 200 newest keep the pool's memory small.
  if (!duplicate && answer?.status === 201) pool.sent = [...pool.sent.slice(-199), file]
  if (thinkMs > 0) await sleep(thinkMs * (0.5 + random()))
}

/** Fake Moonraker, OctoPrint and PrusaLink printers on loopback, registered with the vault. */
export async function registerFakePrinters(url: string, authorization: string) {
  const secret = 'load-bench-printer-secret'
  const fakes = [
    { provider: 'moonraker', fake: await fakeMoonraker(secret), credentials: { api_key: secret } },
    { provider: 'octoprint', fake: await fakeOctoPrint(secret), credentials: { api_key: secret } },
    {
      provider: 'prusalink',
      fake: await fakePrusaLink({ username: 'maker', password: secret }),
      credentials: { username: 'maker', password: secret },
    },
  ]
  const ids: string[] = []
  for (const { provider, fake, credentials } of fakes) {
    const res = await fetch(`${url}/api/v1/printers`, {
      method: 'POST',
      headers: { Authorization: authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `${provider} on loopback`, provider, address: fake.url, credentials }),
    })
    if (res.status !== 201) throw new Error(`registering ${provider} answered ${res.status}: ${await res.text()}`)
    ids.push(((await res.json()) as { id: string }).id)
  }
  return { ids, close: () => Promise.all(fakes.map(({ fake }) => fake.close())) }
}

/**
 * What the printers page polls every 2 s while it is open: the list, and each printer (its
 * detail, as `usePrinter` asks), all at once; then waits out the rest of the 2 s.
 */
export async function pollPrintersOnce(
  target: { url: string; authorization: string; tallies: Tallies },
  printerIds: string[],
  intervalMs: number,
): Promise<void> {
  const started = performance.now()
  const init = { headers: { Authorization: target.authorization } }
  await Promise.all([
    timedRequest(target.tallies, printerRoutes.list, `${target.url}/api/v1/printers`, init),
    ...printerIds.map((id) =>
      timedRequest(target.tallies, printerRoutes.one, `${target.url}/api/v1/printers/${id}`, init),
    ),
  ])
  await sleep(intervalMs - (performance.now() - started))
}

export interface BackupRun {
  status: string
  seconds: number
  archiveMiB: number
}

/**
 * One backup from start to end: `POST /backups`, then its record polled every 500 ms (as the
 * web UI does) until it is no longer running. The archive is deleted once complete, so that a
 * soak of back-to-back backups does not fill the disk. Undefined when it could not start.
 */
export async function backupOnce(
  target: { url: string; authorization: string; tallies: Tallies },
  backupDir: string,
): Promise<BackupRun | undefined> {
  const headers = { Authorization: target.authorization }
  const started = performance.now()
  const answer = await timedRequest(target.tallies, backupRoutes.start, `${target.url}/api/v1/backups`, {
    method: 'POST',
    headers,
  })
  if (answer?.status !== 202) {
    await sleep(1000)
    return undefined
  }
  const { id } = JSON.parse(answer.body) as { id: string }
  let record: { status: string; size: number | null; file_name: string } | undefined
  do {
    await sleep(500)
    const polled = await timedRequest(target.tallies, backupRoutes.poll, `${target.url}/api/v1/backups/${id}`, {
      headers,
    })
    if (polled?.status === 200) record = JSON.parse(polled.body)
  } while (record?.status !== 'complete' && record?.status !== 'failed')
  rmSync(join(backupDir, record.file_name), { force: true })
  return {
    status: record.status,
    seconds: (performance.now() - started) / 1000,
    archiveMiB: (record.size ?? 0) / 1024 / 1024,
  }
}
