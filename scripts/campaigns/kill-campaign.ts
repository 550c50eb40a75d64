/**
 * Kill campaign: `npx tsx scripts/campaigns/kill-campaign.ts [--kills 40] [--seed 1] [--postgres]
 * [--build <dir>]` (`--build`: a build to use instead, as in upload-burst.ts).
 *
 * Starts the built service (built into test-results/build, as the end-to-end tests build it) on a
 * temporary data directory (SQLite, or a throwaway PostgreSQL with --postgres), then round after
 * round: drives ingest, a backup or a restore, sends `kill -9` at a seeded random moment of it,
 * starts the service again on the same data, and checks the invariants:
 *
 * - `leftover_staging`, `leftover_scratch`: nothing left in blobs/.staging, thumbs/.staging or
 *   backups/.scratch once start-up is over;
 * - `stuck_running`: no backup record still `running` after the restart;
 * - `health`: /api/v1/health answers 200 with `pass` or `warn`;
 * - `missing_blob`: no file or model row names a blob or thumbnail the stores lack;
 * - `damaged_blob`: every stored blob's bytes hash to its key;
 * - `orphan_after_gc`: after `model-vault blobs gc`, no stored blob that no row names (but those
 *   older than the newest restore safety copy, which gc keeps on purpose: that copy relies on them);
 * - `backup_refused`: a new backup is accepted (202), not refused by a dead process's lock;
 * - `restore_gate_stuck`: the first sign-in after the restart is answered, not refused with 503
 *   `restore_in_progress` by the lock of a restore killed after its swap.
 *
 * Prints a table of faults injected, invariants checked, violations by kind and leftovers.
 */

import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import pg from 'pg'
import { ensureBuilt } from '../../test/support/built-vault.js'
import { filesUnder } from '../../test/support/leftovers.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { seededRandom } from '../seeded-random.js'
import { campaignFile } from './campaign-files.js'
import { buildDirArgument, type ServiceProcess, signInAdmin, startServiceProcess } from './service-process.js'

type Phase = 'ingest' | 'backup' | 'restore'

export interface KillCampaignReport {
  /** kill -9 sent, by what the service was doing. */
  faults: Record<Phase, number>
  /** Invariant checks made, each check of one kind after one restart counting once. */
  checks: number
  /** Every violation: its kind and what was seen. */
  violations: { kind: string; round: number; detail: string }[]
  /** Files in staging and scratch folders right after each kill (before a start-up cleared them). */
  leftAfterKills: number
}

export interface KillCampaignOptions {
  buildDir: string
  dataDir: string
  databaseUrl: string
  kills: number
  seed: number
  /** Progress lines; nothing by default. */
  log?: (line: string) => void
}

const scratchFolders = ['blobs/.staging', 'thumbs/.staging', 'backups/.scratch']

/** Stored keys of one store (`blobs` or `thumbs`): `<root>/<two chars>/<key>`. */
function storedKeys(dataDir: string, store: string): string[] {
  const root = join(dataDir, store)
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .flatMap((shard) => readdirSync(join(root, shard.name)).map((key) => key))
}

function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256')
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')))
  })
}

/** The rows the invariants look at, read straight from the database. */
interface Rows {
  fileBlobs: string[]
  thumbnails: string[]
  runningBackups: string[]
}

async function readRows(databaseUrl: string): Promise<Rows> {
  const queries = {
    fileBlobs: 'select sha256 as key from files',
    thumbnails:
      'select thumbnail_sha256 as key from files where thumbnail_sha256 is not null union select thumbnail_sha256 from models where thumbnail_sha256 is not null',
    runningBackups: "select id as key from backups where status = 'running'",
  }
  const run = async (query: (sql: string) => Promise<{ key: string }[]>): Promise<Rows> => ({
    fileBlobs: (await query(queries.fileBlobs)).map((row) => row.key),
    thumbnails: (await query(queries.thumbnails)).map((row) => row.key),
    runningBackups: (await query(queries.runningBackups)).map((row) => row.key),
  })
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true })
    try {
      return await run(async (sql) => db.prepare(sql).all() as { key: string }[])
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return await run(async (sql) => (await client.query<{ key: string }>(sql)).rows)
  } finally {
    await client.end()
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` for up to `ms` (start-up clean-up may finish just after the listening line): its last answer. */
async function settle<T>(check: () => Promise<T> | T, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = Date.now() + ms
  let value = await check()
  while (!ok(value) && Date.now() < until) {
    await pause(200)
    value = await check()
  }
  return value
}

function runCli(buildDir: string, env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(buildDir, 'src/cli/cli.js'), ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    )
  })
}

export async function runKillCampaign(options: KillCampaignOptions): Promise<KillCampaignReport> {
  const { buildDir, dataDir, databaseUrl } = options
  const log = options.log ?? (() => {})
  const random = seededRandom(options.seed)
  const env = {
    VAULT_DATA_DIR: dataDir,
    VAULT_DATABASE_URL: databaseUrl,
    // The campaign's kills are seconds apart: blobs orphaned by one are old enough for the next gc.
    VAULT_GC_GRACE_MINUTES: '0',
  }
  const report: KillCampaignReport = {
    faults: { ingest: 0, backup: 0, restore: 0 },
    checks: 0,
    violations: [],
    leftAfterKills: 0,
  }
  /** Milliseconds each kind of work took when last let run to the end: the window a kill lands in. */
  const window: Record<Phase, number> = { ingest: 1500, backup: 1500, restore: 1500 }
  let uploads = 0
  let round = 0
  const violation = (kind: string, detail: string) => {
    report.violations.push({ kind, round, detail })
    log(`round ${round}: ${kind}: ${detail}`)
  }
  const check = (kind: string, ok: boolean, detail: () => string) => {
    report.checks++
    if (!ok) violation(kind, detail())
  }

  /**
   * Signs in on the restarted service, at once: a restore killed at any point (right after its swap
   * too) leaves a lock that names the killed process, which start-up sees is gone and removes. A
   * 503 `restore_in_progress` is a violation.
   */
  const signInAfterStart = async (service: ServiceProcess) => {
    try {
      return await signInAdmin(service.url)
    } catch (error) {
      if (String(error).includes('"code":"restore_in_progress"'))
        violation('restore_gate_stuck', '503 restore_in_progress right after the restart')
      throw error
    }
  }

  const checkAfterStart = async (service: ServiceProcess, authorization: string) => {
    const leftovers = await settle(
      () => filesUnder(dataDir, scratchFolders),
      (left) => left.length === 0,
    )
    check('leftover_staging', !leftovers.some((path) => path.includes('.staging')), () => leftovers.join(', '))
    check('leftover_scratch', !leftovers.some((path) => path.includes('.scratch')), () => leftovers.join(', '))
    const rows = await settle(
      () => readRows(databaseUrl),
      (r) => r.runningBackups.length === 0,
    )
    check('stuck_running', rows.runningBackups.length === 0, () => `backups ${rows.runningBackups.join(', ')}`)
    const health = await fetch(`${service.url}/api/v1/health`)
    const status = ((await health.json().catch(() => null)) as { status?: string } | null)?.status
    check(
      'health',
      health.status === 200 && (status === 'pass' || status === 'warn'),
      () => `${health.status} ${status}`,
    )
    const blobs = new Set(storedKeys(dataDir, 'blobs'))
    const thumbs = new Set(storedKeys(dataDir, 'thumbs'))
    const missing = [
      ...rows.fileBlobs.filter((key) => !blobs.has(key)),
      ...rows.thumbnails.filter((key) => !thumbs.has(key)),
    ]
    check('missing_blob', missing.length === 0, () => missing.join(', '))
    const damaged: string[] = []
    for (const [store, keys] of [
      ['blobs', blobs],
      ['thumbs', thumbs],
    ] as const) {
      for (const key of keys) {
        if ((await sha256Of(join(dataDir, store, key.slice(0, 2), key))) !== key) damaged.push(`${store}/${key}`)
      }
    }
    check('damaged_blob', damaged.length === 0, () => damaged.join(', '))
    const gc = await runCli(buildDir, env, ['blobs', 'gc'])
    check('gc_failed', gc.code === 0, () => `model-vault blobs gc exited ${gc.code}: ${gc.output.split('\n')[0]}`)
    const after = await readRows(databaseUrl)
    const named = new Set([...after.fileBlobs, ...after.thumbnails])
    // gc keeps, on purpose, blobs older than the newest restore safety copy (which relies on them).
    const safetyCopyMs = Math.max(
      0,
      ...readdirSync(join(dataDir, 'backups'))
        .filter((name) => name.startsWith('pre-restore-'))
        .map((name) => statSync(join(dataDir, 'backups', name)).mtimeMs),
    )
    const orphans = (['blobs', 'thumbs'] as const).flatMap((store) =>
      storedKeys(dataDir, store)
        .filter((key) => !named.has(key))
        .filter((key) => statSync(join(dataDir, store, key.slice(0, 2), key)).mtimeMs >= safetyCopyMs),
    )
    check('orphan_after_gc', orphans.length === 0, () => `${orphans.length} orphans younger than the safety copy`)
    const backup = await fetch(`${service.url}/api/v1/backups`, {
      method: 'POST',
      headers: { Authorization: authorization },
    })
    const body = (await backup.json().catch(() => null)) as { id?: string; detail?: string } | null
    check('backup_refused', backup.status === 202, () => `${backup.status} ${body?.detail ?? ''}`)
    return body?.id
  }

  /** The backup's status once it is no longer `running` (or `running` still after a minute). */
  const waitForBackup = async (service: ServiceProcess, authorization: string, id: string) => {
    const until = Date.now() + 60_000
    for (;;) {
      const res = await fetch(`${service.url}/api/v1/backups/${id}`, { headers: { Authorization: authorization } })
      const { status } = (await res.json()) as { status: string }
      if (status !== 'running' || Date.now() > until) return status
      await pause(50)
    }
  }

  const ingest = (service: ServiceProcess, authorization: string) =>
    Promise.all(
      Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
        const file = campaignFile(uploads++, Math.floor(64 * 1024 + random() * 4 * 1024 * 1024), random)
        const form = new FormData()
        form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name)
        return fetch(`${service.url}/api/v1/ingest`, {
          method: 'POST',
          headers: { Authorization: authorization },
          body: form,
        }).then(
          (res) => res.arrayBuffer().then(() => res.status),
          () => 0,
        )
      }),
    )

  let service = await startServiceProcess(buildDir, env)
  try {
    for (round = 1; round <= options.kills + 1; round++) {
      const authorization = await signInAfterStart(service)
      const backupId = await checkAfterStart(service, authorization)
      if (round > options.kills) break
      // Some content first, so backups and restores have bytes to work through.
      if (uploads < 12) await ingest(service, authorization)
      const drawn: Phase = (['ingest', 'backup', 'restore'] as const)[Math.floor(random() * 3)]!
      // A restore needs the backup this round started; when it was refused, ingest instead.
      const phase = drawn === 'restore' && !backupId ? 'ingest' : drawn
      const delay = random() * window[phase]
      const started = performance.now()
      let work: Promise<unknown>
      if (phase === 'ingest') {
        if (backupId) await waitForBackup(service, authorization, backupId)
        work = ingest(service, authorization)
      } else if (phase === 'backup') {
        if (backupId) await waitForBackup(service, authorization, backupId)
        const res = await fetch(`${service.url}/api/v1/backups`, {
          method: 'POST',
          headers: { Authorization: authorization },
        })
        const { id } = (await res.json()) as { id: string }
        work = waitForBackup(service, authorization, id)
      } else {
        const status = await waitForBackup(service, authorization, backupId!)
        if (status !== 'complete') violation('backup_failed', `backup ${backupId} ended ${status}`)
        work = fetch(`${service.url}/api/v1/backups/${backupId}/restore`, {
          method: 'POST',
          headers: { Authorization: authorization },
        }).then((res) => res.arrayBuffer())
      }
      const finished = await Promise.race([
        work.then(
          () => true,
          () => true,
        ),
        pause(delay).then(() => false),
      ])
      if (finished) window[phase] = Math.max(200, (performance.now() - started) * 1.2)
      await service.stop('SIGKILL')
      report.faults[phase]++
      const left = filesUnder(dataDir, scratchFolders).length
      report.leftAfterKills += left
      log(
        `round ${round}: kill -9 during ${phase} after ${delay.toFixed(0)} ms${finished ? ' (it had finished)' : ''}, ${left} files in staging/scratch`,
      )
      await work.catch(() => {})
      service = await startServiceProcess(buildDir, env)
    }
  } finally {
    await service.stop()
  }
  return report
}

/** The report as a Markdown table. */
export function formatReport(report: KillCampaignReport, title: string): string {
  const kinds = new Map<string, number>()
  for (const { kind } of report.violations) kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  const faults = Object.values(report.faults).reduce((a, b) => a + b, 0)
  return [
    `| ${title} | |`,
    '|---|---|',
    `| faults injected (kill -9) | ${faults}: ${Object.entries(report.faults)
      .map(([phase, n]) => `${n} during ${phase}`)
      .join(', ')} |`,
    `| invariant checks | ${report.checks} |`,
    `| violations | ${report.violations.length}${[...kinds].map(([kind, n]) => `, ${kind}: ${n}`).join('')} |`,
    `| files in staging/scratch right after the kills | ${report.leftAfterKills} |`,
  ].join('\n')
}

async function main(): Promise<void> {
  const at = (name: string, fallback: number) => {
    const index = process.argv.indexOf(`--${name}`)
    return index >= 0 ? Number(process.argv[index + 1]) : fallback
  }
  const kills = at('kills', 40)
  const seed = at('seed', 1)
  const postgres = process.argv.includes('--postgres') ? await startThrowawayPostgres() : undefined
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-kill-'))
  try {
    const report = await runKillCampaign({
      buildDir: buildDirArgument() ?? (await ensureBuilt()),
      dataDir,
      databaseUrl: postgres ? postgres.adminUrl : `sqlite:${dataDir}/db/vault.sqlite`,
      kills,
      seed,
      log: (line) => console.error(line),
    })
    console.log(formatReport(report, `Kill campaign (${postgres ? 'PostgreSQL' : 'SQLite'}, seed ${seed})`))
    for (const { kind, round, detail } of report.violations) console.log(`- round ${round}, ${kind}: ${detail}`)
  } finally {
    postgres?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
