import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createTestDatabase } from './support/test-database.js'

/** The README's quick start, as a new user runs it: build, then `npm start`, then curl health. */
describe('the README quick start', () => {
  it('the README shows the start and test commands this test and .ci/run use', async () => {
    const readme = await readFile('README.md', 'utf8')
    expect(readme).toContain('npm ci && VAULT_DATA_DIR=./data npm start')
    expect(readme).toContain('npm test')
    expect(await readFile('.ci/run', 'utf8')).toMatch(/^npm test$/m)
  })

  it('`npm start` serves health on the embedded default, creating its data layout', async () => {
    // As in a user's shell: without the NODE_ENV=test that Vitest sets (Vite would build React for development).
    const { NODE_ENV: _test, ...userEnv } = process.env
    execFileSync('npm', ['run', 'build'], { stdio: 'pipe', env: userEnv })
    const dataDir = await mkdtemp(join(tmpdir(), 'vault-quick-'))
    const database = await createTestDatabase(dataDir)
    const child = spawn('npm', ['start'], {
      env: { ...process.env, VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, VAULT_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 'listening' line: ${stdout}`)), 30_000)
      child.stdout.on('data', () => {
        const match = /"msg":"listening","url":"([^"]+)"/.exec(stdout)
        if (match) {
          clearTimeout(timer)
          resolve(match[1]!)
        }
      })
    })
    const health = await (await fetch(`${url}/api/v1/health`)).json()
    expect(health.components.database.status).toBe('pass')
    expect(health.components.storage.status).toBe('pass')
    expect(health.components.database.details.kind).toBe(database.kind)
    for (const dir of ['blobs', 'thumbs', 'backups']) expect((await stat(join(dataDir, dir))).isDirectory()).toBe(true)
    // npm passes SIGTERM on to node and ends by the signal itself; node must stop cleanly
    // (`close` waits for node too: it shares npm's stdout).
    child.kill('SIGTERM')
    await closed
    expect(stdout).toContain('"msg":"stopped"')
    await database.drop()
    await rm(dataDir, { recursive: true, force: true })
    // The build (type declarations for the package included) is part of what the user runs.
  }, 240_000)
})
