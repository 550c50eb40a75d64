import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { createTestDatabase } from './test-database.js'
import { collectWebCoverage, webCoverageBuild } from './web-coverage.js'

const run = promisify(execFile)

const sources = ['src', 'web', 'package.json', 'tsconfig.json', 'tsconfig.build.json']

/** Names the source state: every source file's path, size and modification time. */
async function sourceStamp(): Promise<string> {
  const hash = createHash('sha256')
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path)
    if (!info.isDirectory()) return void hash.update(`${path}:${info.size}:${info.mtimeMs}\n`)
    for (const entry of (await readdir(path)).sort()) await visit(join(path, entry))
  }
  for (const source of sources) await visit(source)
  return hash.digest('hex').slice(0, 16)
}

/** Whether the process that took a build lock has exited (a lock not yet signed is still live). */
async function builderIsGone(lock: string): Promise<boolean> {
  const pid = Number(await readFile(join(lock, 'pid'), 'utf8').catch(() => ''))
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

/**
 * The service and web UI built as `npm run build` builds them, but into a folder of their own, so
 * a test that runs `npm run build` meanwhile (the quick start) never changes files under a running
 * service. Resolves the folder, which holds `src/` and `web/` as `dist/` does.
 */
export function ensureBuilt(): Promise<string> {
  return oncePerSourceState(collectWebCoverage ? webCoverageBuild : 'build', async (dir) => {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--noCheck', '--outDir', dir])
    // Under coverage the UI's bundles get source maps beside them (not named in the bundles, which
    // stay as users get them), so `scripts/web-coverage.ts` maps what ran back to web/src.
    const sourcemap = collectWebCoverage ? ['--sourcemap', 'hidden'] : []
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build: test what users get.
    const web = ['--config', 'web/vite.config.ts', '--outDir', resolve(dir, 'web'), ...sourcemap]
    await run('npx', ['vite', 'build', ...web], { env: { ...process.env, NODE_ENV: 'production' } })
  })
}

/**
 * Makes `<test-results/kind>/<source stamp>` with `make` once per source state: parallel test
 * files (and both test projects) wait for the first one's work (a `mkdir` lock), later runs reuse
 * it. Resolves the folder.
 */
export async function oncePerSourceState(kind: string, make: (dir: string) => Promise<void>): Promise<string> {
  const parent = join('test-results', kind)
  const dir = join(parent, await sourceStamp())
  const done = join(dir, '.complete')
  const lock = `${dir}.lock`
  await mkdir(parent, { recursive: true })
  for (;;) {
    if (await exists(done)) return dir
    try {
      await mkdir(lock)
      await writeFile(join(lock, 'pid'), String(process.pid))
      break
    } catch {
      // A builder killed mid-build (a hook timeout, ^C) leaves its lock: take it over, or wait forever.
      if (await builderIsGone(lock)) await rm(lock, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  try {
    if (await exists(done)) return dir
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir, { recursive: true })
    await make(dir)
    await writeFile(done, '')
    // Older source states will not come back; their folders only take space. One may still serve
    // a test in another process (several people test at once while editing), so only folders
    // untouched for an hour go.
    for (const entry of await readdir(parent)) {
      const path = join(parent, entry)
      const stale = (await stat(path)).mtimeMs < Date.now() - 3_600_000
      if (stale && entry !== dir.split('/').pop() && !entry.endsWith('.lock')) {
        await rm(path, { recursive: true, force: true })
      }
    }
    return dir
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
}

/**
 * Waits for a service process's `listening` log line (or the first match of `listening`'s group 1)
 * and resolves its URL, what it wrote to stdout so far and later, and its exit; rejects when it
 * exits first or stays silent for 30 s.
 */
export async function untilListening(
  child: ChildProcessByStdio<null, Readable, Readable>,
  listening = /"msg":"listening","url":"([^"]+)"/,
): Promise<{ baseUrl: string; output: () => string; exited: Promise<void> }> {
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'listening' line: ${stdout}${stderr}`)), 30_000)
    child.on('exit', (code) => reject(new Error(`the service exited (${code}): ${stdout}${stderr}`)))
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = listening.exec(stdout)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  })
  return { baseUrl, output: () => stdout, exited }
}

export interface BuiltService {
  /** `http://127.0.0.1:<port>`, from the service's own `listening` line. */
  baseUrl: string
  /** Everything the service wrote to stdout (JSON log lines). */
  output(): string
  /** Sends SIGTERM and resolves once the process is gone. */
  stop(): Promise<void>
}

/**
 * Starts the built service in its own process, as `npm start` does (`node …/main.js`), on a free
 * port with `env` added to the environment (at least `VAULT_DATA_DIR` and `VAULT_DATABASE_URL`).
 * Several on one database (and, with `VAULT_STORAGE=s3`, one bucket) are replicas of one install.
 */
export async function startBuiltService(env: Record<string, string>): Promise<BuiltService> {
  const dir = await ensureBuilt()
  const child = spawn(process.execPath, [join(dir, 'src/adapters/node/main.js')], {
    env: { ...process.env, VAULT_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { baseUrl, output, exited } = await untilListening(child)
  return {
    baseUrl,
    output,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}

export interface BuiltVault {
  /** `http://127.0.0.1:<port>`, from the service's own `listening` line. */
  baseUrl: string
  /** Everything the service wrote to stdout (JSON log lines). */
  output(): string
  /**
   * Starts another process of the same install (its data directory and database) with `env` added,
   * as a replica would run beside it; `close` stops it first if the test has not.
   */
  replica(env: Record<string, string>): Promise<BuiltService>
  close(): Promise<void>
}

/**
 * Starts the built service in its own process (`startBuiltService`) on a temporary data directory
 * and a fresh database of this test project's kind, with `env` added to the `VAULT_*` variables.
 * `prepare` runs first, on the empty database and data directory (to fill a big library faster
 * than uploads would).
 */
export async function startBuiltVault(
  env: Record<string, string> = {},
  prepare?: (database: { url: string; kind: 'sqlite' | 'postgres' }, dataDir: string) => Promise<void>,
): Promise<BuiltVault> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vault-e2e-'))
  const database = await createTestDatabase(dataDir)
  await prepare?.(database, dataDir)
  const install = { VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url }
  const service = await startBuiltService({ ...install, ...env })
  const replicas: BuiltService[] = []
  return {
    baseUrl: service.baseUrl,
    output: service.output,
    async replica(replicaEnv) {
      const replica = await startBuiltService({ ...install, ...replicaEnv })
      replicas.push(replica)
      return replica
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.stop()))
      await service.stop()
      await database.drop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
