import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { type AddressInfo, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { latestSchemaVersion } from '../src/core/db/migrate.js'
import { createTestDatabase } from './support/test-database.js'
import { until } from './support/until.js'

/**
 * The Node entry as a user runs it: a real process, configured only by environment variables.
 * It runs from source through tsx so the test needs no build; `quick-start.test.ts` runs the
 * built `npm start`.
 */
const entry = ['--import', 'tsx', 'src/adapters/node/main.ts']

interface Run {
  child: ChildProcess
  stdout: string[]
  stderr: string
  exit: Promise<number | null>
}

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, entry, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const result: Run = { child, stdout: [], stderr: '', exit: new Promise((resolve) => child.on('exit', resolve)) }
  let partial = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n')
    partial = lines.pop()!
    result.stdout.push(...lines)
  })
  child.stderr!.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()))
  return result
}

async function listeningUrl(r: Run): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const line = r.stdout.map((l) => JSON.parse(l)).find((l) => l.msg === 'listening')
    if (line) return line.url
    if (r.child.exitCode !== null) throw new Error(`exited early: ${r.stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('did not start listening in 30 s')
}

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vault-start-'))
})
afterEach(async () => rm(dataDir, { recursive: true, force: true }))

describe('starting and stopping the service', () => {
  it('starts from environment variables, migrates, serves health, and stops cleanly on SIGTERM', async () => {
    const database = await createTestDatabase(dataDir)
    const r = run({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, VAULT_PORT: '0' })
    const url = await listeningUrl(r)
    const health = await fetch(`${url}/api/v1/health`)
    expect(health.status).toBe(200)
    expect((await health.json()).components.database.details.kind).toBe(database.kind)
    expect(r.stdout.map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ msg: 'database ready', schema_version: latestSchemaVersion }),
    )

    r.child.kill('SIGTERM')
    expect(await r.exit).toBe(0)
    expect(r.stdout.map((l) => JSON.parse(l).msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']))
    expect(r.stderr).toBe('')
    await database.drop()
  })

  it('finishes a response that is in flight when SIGTERM arrives', async () => {
    const database = await createTestDatabase(dataDir)
    const r = run({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, VAULT_PORT: '0' })
    const url = new URL(await listeningUrl(r))
    // A large response read slowly: it is still being sent when the signal arrives.
    const socket = connect(Number(url.port), url.hostname)
    socket.write(`GET /docs/assets/redoc.standalone.js HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`)
    const chunks: Buffer[] = []
    await new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunks.push(chunk))))
    socket.pause()
    r.child.kill('SIGTERM')
    await until(
      () => r.stdout.some((line) => JSON.parse(line).msg === 'shutting down'),
      'the service begins to shut down',
    )
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.resume()
    await new Promise((resolve) => socket.on('end', resolve))
    const response = Buffer.concat(chunks)
    const headerEnd = response.indexOf('\r\n\r\n')
    const length = Number(/content-length: (\d+)/i.exec(response.subarray(0, headerEnd).toString())![1])
    expect(response.subarray(0, 12).toString()).toBe('HTTP/1.1 200')
    expect(response.length - headerEnd - 4).toBe(length)
    expect(await r.exit).toBe(0)
    await database.drop()
  })

  it('refuses invalid configuration with one clear message and no stack trace', async () => {
    const r = run({ VAULT_DATA_DIR: dataDir, VAULT_PORT: 'http', VAULT_STORAGE: 'floppy' })
    expect(await r.exit).toBe(1)
    expect(r.stderr).toContain('VAULT_PORT must be a whole number')
    expect(r.stderr).toContain('VAULT_STORAGE must be local or s3')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('says which variable to fix when the data directory cannot be used', async () => {
    const file = join(dataDir, 'not-a-directory')
    await writeFile(file, '')
    const r = run({ VAULT_DATA_DIR: join(file, 'data'), VAULT_PORT: '0' })
    expect(await r.exit).toBe(1)
    expect(r.stderr).toMatch(/^model-vault: Start-up failed: .*VAULT_DATA_DIR/)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('says which variable to fix when the database cannot be reached', async () => {
    const r = run({
      VAULT_DATA_DIR: dataDir,
      VAULT_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/vault',
      VAULT_PORT: '0',
    })
    expect(await r.exit).toBe(1)
    expect(r.stderr).toContain('check VAULT_DATABASE_URL')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it('says which variables to fix when the port is taken', async () => {
    const database = await createTestDatabase(dataDir)
    const first = run({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, VAULT_PORT: '0' })
    const port = new URL(await listeningUrl(first)).port
    const second = run({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, VAULT_PORT: port })
    expect(await second.exit).toBe(1)
    expect(second.stderr).toContain(`Cannot listen on 127.0.0.1:${port} (EADDRINUSE); set VAULT_HOST / VAULT_PORT.`)
    first.child.kill('SIGTERM')
    await first.exit
    await database.drop()
  })

  it('a first start that cannot listen creates nothing, so the next start still prints the one-time password', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    const database = await createTestDatabase(dataDir)
    const env = { VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url }
    const failed = run({ ...env, VAULT_PORT: String(port) })
    expect(await failed.exit).toBe(1)
    taken.close()
    expect(failed.stderr).toContain(`Cannot listen on 127.0.0.1:${port} (EADDRINUSE)`)
    expect(failed.stdout.join('\n')).not.toContain('first superuser')

    const next = run({ ...env, VAULT_PORT: '0' })
    const url = await listeningUrl(next)
    const created = next.stdout.map((line) => JSON.parse(line)).find((line) => line.msg.includes('first superuser'))
    expect(created?.password).toEqual(expect.any(String))
    const signIn = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: created.username, password: created.password }),
    })
    expect(signIn.status).toBe(200)
    next.child.kill('SIGTERM')
    expect(await next.exit).toBe(0)
    await database.drop()
  })
})
