import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The first superuser every campaign service is started with. */
export const campaignAdmin = { username: 'campaign', password: 'campaign-password-123' }

export interface ServiceProcess {
  url: string
  pid: number
  /** Resident memory now, in MiB (VmRSS of /proc/<pid>/status); 0 once the process is gone. */
  rssMiB(): number
  /** Everything the service wrote to stdout and stderr so far (JSON log lines). */
  output(): string
  /** Sends `signal` and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** glibc's allocator settings `npm start` and the Docker image run the service with (docs/install.md, "Memory"); the environment may override them. */
const shippedAllocatorEnv = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' }

/**
 * Starts the built service (`<buildDir>/src/adapters/node/main.js`, as `npm start` runs it) on a
 * free port with `env` (at least `VAULT_DATA_DIR` and `VAULT_DATABASE_URL`), and resolves once it
 * prints its `listening` line. Several starts on the same data directory and database are a
 * restart: the first one creates `campaignAdmin`, later ones find it.
 */
export async function startServiceProcess(buildDir: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [join(buildDir, 'src/adapters/node/main.js')], {
    env: {
      ...shippedAllocatorEnv,
      ...process.env,
      VAULT_PORT: '0',
      VAULT_ADMIN_USERNAME: campaignAdmin.username,
      VAULT_ADMIN_PASSWORD: campaignAdmin.password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'listening' line within 60 s: ${out}`)), 60_000)
    child.on('exit', (code, signal) => reject(new Error(`the service exited (${code ?? signal}): ${out}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /"msg":"listening","url":"([^"]+)"/.exec(out)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
  }).catch(async (error) => {
    await stopChild(child, exited, 'SIGKILL')
    throw error
  })
  const pid = child.pid!
  return {
    url,
    pid,
    rssMiB: () => {
      try {
        return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
      } catch {
        return 0
      }
    },
    output: () => out,
    stop: (signal = 'SIGTERM') => stopChild(child, exited, signal),
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  await exited
}

/** Signs in as `account` (`campaignAdmin` unless told): the `Authorization` header value. */
export async function signInAdmin(
  url: string,
  account: { username: string; password: string } = campaignAdmin,
): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(account),
  })
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`)
  const { access_token } = (await res.json()) as { access_token: string }
  return `Bearer ${access_token}`
}

/** The folder given as `--build <dir>` on the command line, if any. */
export function buildDirArgument(): string | undefined {
  const at = process.argv.indexOf('--build')
  return at >= 0 ? process.argv[at + 1] : undefined
}
