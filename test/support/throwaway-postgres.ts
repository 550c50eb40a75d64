import { execFileSync } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: trust authentication on loopback. */
  adminUrl: string
  stop(): void
}

/**
 * Starts a PostgreSQL server from Debian's packages in a temporary directory on a free
 * loopback port, tuned for tests (no fsync). PostgreSQL refuses to run as root, so under
 * root (CI) it runs as the `postgres` user that Debian's package creates.
 *
 * With `keepIn`, the cluster lives in that directory instead and outlives `stop()`: a later
 * call with the same directory starts it again with its data (benchmarks that build a large
 * library once and measure it many times).
 */
export async function startThrowawayPostgres(keepIn?: string): Promise<ThrowawayPostgres> {
  const bin = findPostgresBin()
  const dir = keepIn ?? mkdtempSync(join(tmpdir(), 'vault-pg-'))
  mkdirSync(dir, { recursive: true })
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []
  if (asPostgres.length > 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    chownSync(dir, uid, gid)
  }
  const run = (command: string, args: string[]) => {
    const [file, ...rest] = [...asPostgres, join(bin, command), ...args]
    execFileSync(file!, rest, { stdio: 'pipe' })
  }
  const port = await freePort()
  const dataDir = join(dir, 'data')
  if (!existsSync(join(dataDir, 'PG_VERSION')))
    run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8'])
  run('pg_ctl', [
    '-D',
    dataDir,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
    'start',
  ])
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      if (keepIn) {
        run('pg_ctl', ['-D', dataDir, '-m', 'fast', 'stop'])
        return
      }
      run('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop'])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function findPostgresBin(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : []
  const bin = versions.map((v) => join(root, v, 'bin')).find((dir) => existsSync(join(dir, 'initdb')))
  if (!bin)
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install -y postgresql')
  return bin
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
