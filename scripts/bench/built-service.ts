import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { signInAdmin } from '../campaigns/service-process.js'

export interface BuiltService {
  url: string
  pid: number
  /** `Authorization` header value of the signed-in bench admin. */
  authorization: string
  /** The service's resident memory now, in MiB (VmRSS). */
  rssMiB(): number
  /** Sends SIGTERM; resolves once the process is gone. */
  stop(): Promise<void>
}

/** The first superuser every bench service is started with. */
const benchAdmin = { username: 'bench', password: 'bench-password-123' }

/** Signs in as the bench's superuser: the `Authorization` header value (an access token lasts 15 minutes). */
export const signInBench = (url: string): Promise<string> => signInAdmin(url, benchAdmin)

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * Starts the built service as `npm start` runs it (run `npm run build` first) on a free port
 * with `env` (at least `VAULT_DATA_DIR`), and signs in as its first superuser. `buildDir` names
 * another build (`tsc -p tsconfig.build.json --outDir DIR`), to measure two source states in one run.
 */
export async function startBuiltService(env: Record<string, string>, buildDir = 'dist'): Promise<BuiltService> {
  const child = spawn(process.execPath, [`${buildDir}/src/adapters/node/main.js`], {
    env: {
      ...process.env,
      VAULT_PORT: '0',
      VAULT_ADMIN_USERNAME: benchAdmin.username,
      VAULT_ADMIN_PASSWORD: benchAdmin.password,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out: string | undefined = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      if (out === undefined) return // listening: the request log is read and dropped, not kept
      out += chunk.toString()
      const match = /"msg":"listening","url":"([^"]+)"/.exec(out)
      if (match) {
        out = undefined
        resolve(match[1]!)
      }
    })
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const pid = child.pid!
  return {
    url,
    pid,
    authorization: await signInBench(url),
    rssMiB: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

/**
 * Runs curl (its output discarded) and samples the service's RSS every 20 ms meanwhile: seconds
 * taken, peak MiB. Fails unless curl exits with one of `exitCodes` (28: its `--max-time` ran out).
 */
export async function timedCurl(
  service: BuiltService,
  args: string[],
  exitCodes: number[] = [0],
): Promise<{ seconds: number; peakMiB: number }> {
  const started = process.hrtime.bigint()
  let peak = service.rssMiB()
  const sampler = setInterval(() => (peak = Math.max(peak, service.rssMiB())), 20)
  const code = await new Promise<number | null>((resolve) =>
    spawn('curl', ['-sf', '-o', '/dev/null', ...args], { stdio: 'inherit' }).on('exit', resolve),
  )
  clearInterval(sampler)
  if (code === null || !exitCodes.includes(code)) throw new Error(`curl exited ${code}`)
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMiB: Math.max(peak, service.rssMiB()) }
}
