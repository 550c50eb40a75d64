/**
 * First model cards (issue 13): `npx tsx scripts/bench/library-first-cards.ts [--database sqlite|postgres|both]
 * [--models 100000] [--baseline 1000] [--runs 5]` (after `npm run build`).
 *
 * For each database and each library size (the baseline and the big one, in the same run, so the
 * record is a ratio): a fresh data directory and database filled by the library benchmark's
 * generator (scripts/bench/library-generator.ts), every model thumbnail pointing at one real PNG
 * in the thumbnail store, then the built service (scripts/bench/built-service.ts) and headless
 * Chromium. A signed-in user (a refresh token in localStorage, as the web UI keeps it) opens
 * `/library`: from navigation start to the first frame showing a model card, and to the first
 * frame showing a loaded thumbnail in the grid. "Cold": a new browser context each run (no cached
 * assets); "warm": a reload in the same context. Prints a Markdown section for docs/benchmarks.md.
 */

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { encode } from 'fast-png'
import { sql } from 'kysely'
import type { Browser, BrowserContext } from 'playwright-core'
import { createFsBlobStore } from '../../src/adapters/fs/fs-blob-store.js'
import { launchChromium } from '../../test/support/browser.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { startBuiltService } from './built-service.js'
import { openDatabaseUrl, writeLibrary } from './library-generator.js'

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'both' },
    models: { type: 'string', default: '100000' },
    baseline: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '5' },
  },
})
const kinds = args.database === 'both' ? ['sqlite', 'postgres'] : [args.database]
if (!kinds.every((kind) => kind === 'sqlite' || kind === 'postgres'))
  throw new Error('--database must be sqlite, postgres or both')
const sizes = [Number(args.baseline), Number(args.models)]
const runs = Number(args.runs)
const goalMs = 1000

/** A 320 × 240 gradient PNG: what the thumbnail route serves for every model that has one. */
function thumbnailPng(): Uint8Array {
  const [width, height] = [320, 240]
  const data = new Uint8Array(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set([x % 256, y % 256, 160], (y * width + x) * 3)
  return encode({ width, height, data, channels: 3 })
}

/** Stores the PNG as a thumbnail blob and points every model that has a thumbnail at it. */
async function storeThumbnails(url: string, dataDir: string): Promise<void> {
  const png = thumbnailPng()
  const key = createHash('sha256').update(png).digest('hex')
  const store = await createFsBlobStore(join(dataDir, 'thumbs'))
  const staged = await store.stage(new Blob([Buffer.from(png)]).stream())
  await staged.commit(key)
  const database = openDatabaseUrl(url, dataDir)
  try {
    await sql`update models set thumbnail_sha256 = ${key} where thumbnail_sha256 is not null`.execute(database.db)
  } finally {
    await database.close()
  }
}

/**
 * Marks, in page time (ms from navigation start), the first frame with a card and with a loaded
 * thumbnail. Plain script text: tsx would wrap a function's inner functions in a helper the page lacks.
 */
const recordFirstCards = `
  const marks = (window.firstCards = {})
  const check = () => {
    const grid = document.querySelector('[role="list"][aria-label="Models"]')
    if (!grid || marks.pending) return
    const card = marks.card === undefined && grid.querySelector('a[href^="/models/"]')
    const image = grid.querySelector('img')
    const thumbnail = marks.thumbnail === undefined && image && image.complete && image.naturalWidth > 0
    if (!card && !thumbnail) return
    marks.pending = true
    requestAnimationFrame(() => {
      const now = performance.now()
      if (card) marks.card = now
      if (thumbnail) marks.thumbnail = now
      marks.pending = false
      check()
    })
  }
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true })
  document.addEventListener('load', check, true)
`

interface Run {
  card: number
  thumbnail: number
  /** When the first `GET /api/v1/models` answer had fully arrived. */
  api: number
}

async function measureLoad(context: BrowserContext, url: string, reload: boolean): Promise<Run> {
  const page = context.pages()[0] ?? (await context.newPage())
  if (reload) await page.reload()
  else await page.goto(`${url}/library`)
  await page
    .waitForFunction(
      () => {
        const marks = (window as unknown as { firstCards?: { card?: number; thumbnail?: number } }).firstCards
        return marks?.card !== undefined && marks.thumbnail !== undefined
      },
      undefined,
      { timeout: 60_000 },
    )
    .catch(async (error: unknown) => {
      await page.screenshot({ path: join(tmpdir(), 'first-cards-timeout.png') })
      console.error(
        await page.evaluate(() => JSON.stringify((window as unknown as { firstCards?: unknown }).firstCards)),
      )
      throw error
    })
  return page.evaluate(() => {
    const marks = (window as unknown as { firstCards: { card: number; thumbnail: number } }).firstCards
    const api = performance
      .getEntriesByType('resource')
      .find((entry) => new URL(entry.name).pathname === '/api/v1/models') as PerformanceResourceTiming
    return { card: marks.card, thumbnail: marks.thumbnail, api: api.responseEnd }
  })
}

async function signedInContext(browser: Browser, url: string): Promise<BrowserContext> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-123' }),
  })
  const { refresh_token } = (await login.json()) as { refresh_token: string }
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    storageState: {
      cookies: [],
      origins: [{ origin: url, localStorage: [{ name: 'model-vault.refresh-token', value: refresh_token }] }],
    },
  })
  await context.addInitScript({ content: recordFirstCards })
  return context
}

interface SizeResult {
  kind: string
  models: number
  writeSeconds: number
  cold: Run[]
  warm: Run[]
}

async function benchSize(browser: Browser, kind: string, models: number): Promise<SizeResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-first-cards-'))
  const postgres = kind === 'postgres' ? await startThrowawayPostgres() : undefined
  try {
    const url = postgres ? postgres.adminUrl : `sqlite:${join(dataDir, 'db', 'vault.sqlite')}`
    const database = openDatabaseUrl(url, dataDir)
    console.log(`[${kind}] generating ${models.toLocaleString('en')} models`)
    let written: { seconds: number }
    try {
      written = await writeLibrary(database, models)
    } finally {
      await database.close()
    }
    await storeThumbnails(url, dataDir)
    const service = await startBuiltService({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: url })
    try {
      const cold: Run[] = []
      const warm: Run[] = []
      // One unmeasured load: the service's first queries warm its caches, as any use would.
      const warmUp = await signedInContext(browser, service.url)
      await measureLoad(warmUp, service.url, false)
      await warmUp.close()
      for (let i = 0; i < runs; i++) {
        const context = await signedInContext(browser, service.url)
        try {
          cold.push(await measureLoad(context, service.url, false))
          warm.push(await measureLoad(context, service.url, true))
        } finally {
          await context.close()
        }
        console.log(
          `  [${kind} ${models}] cold card ${cold.at(-1)!.card.toFixed(0)} ms, thumbnail ${cold.at(-1)!.thumbnail.toFixed(0)} ms; warm card ${warm.at(-1)!.card.toFixed(0)} ms`,
        )
      }
      return { kind, models, writeSeconds: written.seconds, cold, warm }
    } finally {
      service.stop()
    }
  } finally {
    postgres?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
const ms = (value: number) => value.toFixed(0)
const stat = (values: number[]) => `${ms(median(values))} / ${ms(Math.max(...values))}`

function report(results: SizeResult[]): string {
  const command = `npx tsx scripts/bench/library-first-cards.ts --database ${args.database} --models ${sizes[1]} --baseline ${sizes[0]} --runs ${runs}`
  const lines = [
    '## Library: first model cards (issue 13)',
    '',
    `Command: \`${command}\` (after \`npm run build\`). Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, ${execFileSync('/usr/bin/chromium', ['--version']).toString().trim()} headless at 1280 × 900; the service, the database and the browser share the machine.`,
    '',
    'Libraries from the library benchmark\'s generator (three files per model, tags, collections); every model with a thumbnail (80 %) points at one 320 × 240 PNG in the thumbnail store. A signed-in user (refresh token in localStorage) opens `/library`: times from navigation start to the first frame showing a model card and to the first frame showing a loaded thumbnail; "API" is when the first `GET /api/v1/models` answer had arrived. Cold: a new browser context (nothing cached); warm: a reload. Median / max of the runs, in ms; "× baseline" compares the medians of the first card.',
    '',
    '| Database | Models | Runs | Cold: API | Cold: first card | Cold: first thumbnail | Warm: first card | Warm: first thumbnail | Cold first card × baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const result of results) {
    const baseline = results.find((r) => r.kind === result.kind && r.models === sizes[0])!
    lines.push(
      `| ${result.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${result.models.toLocaleString('en')} | ${result.cold.length} | ${stat(result.cold.map((r) => r.api))} | ${stat(result.cold.map((r) => r.card))} | ${stat(result.cold.map((r) => r.thumbnail))} | ${stat(result.warm.map((r) => r.card))} | ${stat(result.warm.map((r) => r.thumbnail))} | ${(median(result.cold.map((r) => r.card)) / median(baseline.cold.map((r) => r.card))).toFixed(2)} |`,
    )
  }
  lines.push('')
  for (const kind of kinds) {
    const big = results.find((r) => r.kind === kind && r.models === sizes[1])!
    const worst = Math.max(...big.cold.map((r) => r.card), ...big.warm.map((r) => r.card))
    lines.push(
      `- Goal "first cards within 1 s at ${sizes[1]!.toLocaleString('en')} models", ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${worst < goalMs ? '**met**' : '**not met**'} (slowest run ${ms(worst)} ms).`,
    )
  }
  return `${lines.join('\n')}\n`
}

const browser = await launchChromium()
try {
  const results: SizeResult[] = []
  for (const kind of kinds) for (const models of sizes) results.push(await benchSize(browser, kind, models))
  console.log(`\n${report(results)}`)
} finally {
  await browser.close()
}
