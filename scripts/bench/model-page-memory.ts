/**
 * Tab memory of a large mesh's model page: `npx tsx scripts/bench/model-page-memory.ts [--mb 300]`
 * (after `npm run build`).
 *
 * Uploads a sphere of about `--mb` MB of binary STL (a single body, so it gets a preview mesh) to
 * the built service, then opens its model page in headless Chromium three times, each in a fresh
 * browser: the library page alone (the baseline), the model page as it opens (on the preview), and
 * the model page after "Load full detail" (the whole file, as every page did before previews).
 * Samples the proportional set size (PSS, /proc/<pid>/smaps_rollup) of every Chromium process
 * every 100 ms until the 3D view has drawn and settled, and prints the peaks: the page's renderer
 * process (the tab) and all of Chromium's.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Page } from 'playwright-core'
import { launchChromium } from '../../test/support/browser.js'
import { sphereStl } from '../../test/support/sphere-mesh.js'
import { startBuiltService } from './built-service.js'

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '300' } } })
const goalMiB = 200

/** Processes descended from this one (Chromium and its helpers), by walking /proc's parent links. */
function descendants(root: number): { pid: number; renderer: boolean }[] {
  const parents = new Map<number, number>()
  const commands = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.split(') ')[1]?.split(' ')[1]))
      commands.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'))
    } catch {
      // Gone since it was listed.
    }
  }
  const found: { pid: number; renderer: boolean }[] = []
  const visit = (parent: number) => {
    for (const [pid, ppid] of parents)
      if (ppid === parent) {
        found.push({ pid, renderer: (commands.get(pid) ?? '').includes('--type=renderer') })
        visit(pid)
      }
  }
  visit(root)
  return found
}

const pssMiB = (pid: number) => {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

interface Peak {
  /** The largest renderer process: the tab. */
  tab: number
  chromium: number
}

/** Samples until `done` resolves, then two more seconds for the view to settle and the garbage to go. */
async function peakWhile(done: Promise<unknown>): Promise<Peak> {
  const peak: Peak = { tab: 0, chromium: 0 }
  const sample = () => {
    const processes = descendants(process.pid)
    const tab = Math.max(0, ...processes.filter((p) => p.renderer).map((p) => pssMiB(p.pid)))
    const chromium = processes.reduce((sum, p) => sum + pssMiB(p.pid), 0)
    peak.tab = Math.max(peak.tab, tab)
    peak.chromium = Math.max(peak.chromium, chromium)
  }
  const timer = setInterval(sample, 100)
  try {
    await done
    await new Promise((resolve) => setTimeout(resolve, 2000))
    sample()
  } finally {
    clearInterval(timer)
  }
  return peak
}

/** A refresh token of its own for each browser: the vault rotates them, and a reused one ends the session. */
async function refreshToken(url: string): Promise<string> {
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'bench', password: 'bench-password-123' }),
  })
  return ((await login.json()) as { refresh_token: string }).refresh_token
}

async function openPage(url: string, path: string, then: (page: Page) => Promise<void>) {
  const token = await refreshToken(url)
  const browser = await launchChromium()
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      storageState: {
        cookies: [],
        origins: [{ origin: url, localStorage: [{ name: 'model-vault.refresh-token', value: token }] }],
      },
    })
    const page = await context.newPage()
    return await peakWhile(page.goto(`${url}${path}`).then(() => then(page))).catch(async (error: unknown) => {
      await page.screenshot({ path: join(tmpdir(), 'model-page-memory-failed.png') })
      throw error
    })
  } finally {
    await browser.close()
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'model-page-memory-'))
const service = await startBuiltService({ VAULT_DATA_DIR: dataDir })
try {
  // rings × segments × 2 triangles of 50 bytes each.
  const rings = Math.round(Math.sqrt((Number(args.mb) * 1e6) / 50 / 2 / 1.5))
  const stl = await sphereStl(rings, Math.round(rings * 1.5), 50)
  const stlFile = join(dataDir, 'sphere.stl')
  writeFileSync(stlFile, stl)
  const form = new FormData()
  form.append('file', new Blob([stl]), 'Sphere.stl')
  const uploaded = await fetch(`${service.url}/api/v1/ingest`, {
    method: 'POST',
    headers: { Authorization: service.authorization },
    body: form,
  })
  const { model, file } = (await uploaded.json()) as {
    model: { id: string }
    file: { size: number; preview_triangles: number | null }
  }
  if (!file.preview_triangles) throw new Error('the upload got no preview mesh')
  const drawn = (page: Page) => page.getByRole('img', { name: /^3D view of / }).waitFor({ timeout: 60_000 })

  const library = await openPage(service.url, '/library', (page) =>
    page.getByRole('heading', { name: 'Library' }).first().waitFor(),
  )
  const preview = await openPage(service.url, `/models/${model.id}`, drawn)
  const full = await openPage(service.url, `/models/${model.id}`, async (page) => {
    await drawn(page)
    await page.getByRole('button', { name: /^Load full detail/ }).click()
    await page.getByRole('button', { name: /^Load full detail/ }).waitFor({ state: 'detached', timeout: 60_000 })
    await drawn(page)
  })
  const mb = (file.size / 1e6).toFixed(0)
  const row = (name: string, peak: Peak) =>
    `| ${name} | ${peak.tab.toFixed(0)} MiB | ${peak.chromium.toFixed(0)} MiB | ${peak.tab <= goalMiB ? 'yes' : 'no'} |`
  console.log(
    [
      `Model page of a ${mb} MB STL (${file.preview_triangles.toLocaleString('en-US')}-triangle preview); peak PSS, goal: the tab ≤ ${goalMiB} MiB`,
      '',
      '| Page | Tab (renderer) | All of Chromium | Tab within goal |',
      '|---|---|---|---|',
      row('Library (baseline)', library),
      row('Model page, preview', preview),
      row('Model page, full detail', full),
    ].join('\n'),
  )
} finally {
  await service.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
