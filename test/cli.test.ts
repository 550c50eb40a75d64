import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findUserByName, updateUser } from '../src/core/accounts/users.js'
import { cliArgs, setUpBuiltCli } from './support/built-cli.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

setUpBuiltCli()

/** The recovery CLI, run as a separate process against the same database as a live vault. */
let vault: TestVault
beforeAll(async () => {
  vault = await startTestVault({ VAULT_ADMIN_USERNAME: 'root', VAULT_ADMIN_PASSWORD: 'root-password-1234' })
})
afterAll(async () => vault.close())

/** Runs the CLI without blocking this process, which also serves the vault under test. */
function cli(
  args: string[],
  stdin?: string,
  env: Record<string, string> = { VAULT_DATA_DIR: vault.dataDir, VAULT_DATABASE_URL: vault.databaseUrl },
) {
  const child = spawn(process.execPath, cliArgs(...args), {
    env: { PATH: process.env.PATH, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdin.end(stdin ?? '')
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  )
}

const login = (username: string, password: string) =>
  fetch(`${vault.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })

describe('model-vault users …', () => {
  it('creates a user with a generated password that signs in to the running service', async () => {
    const run = await cli(['users', 'create', 'maker', '--role', 'admin'])
    expect(run.status).toBe(0)
    const password = /Password \(shown only now\): (\S+)/.exec(run.stdout)?.[1]
    expect(password).toBeDefined()
    const res = await login('maker', password!)
    expect(res.status).toBe(200)
    expect((await res.json()).user.role).toBe('admin')
  })

  it('resets a forgotten password from stdin and ends the old sessions', async () => {
    const before = await (await login('root', 'root-password-1234')).json()
    const run = await cli(['users', 'reset-password', 'ROOT', '--password-stdin', '--enable'], 'a-brand-new-password\n')
    expect(run.status).toBe(0)
    expect(run.stdout).not.toContain('a-brand-new-password')
    expect((await login('root', 'root-password-1234')).status).toBe(401)
    expect((await login('root', 'a-brand-new-password')).status).toBe(200)
    const me = await fetch(`${vault.baseUrl}/api/v1/me`, {
      headers: { Authorization: `Bearer ${before.access_token}` },
    })
    expect(me.status).toBe(401)
  })

  it('re-enables a disabled account only when asked to', async () => {
    expect((await cli(['users', 'create', 'sleeper', '--password-stdin'], 'sleeper-password-1\n')).status).toBe(0)
    const user = await findUserByName(vault.deps.database.db, 'sleeper')
    await updateUser(vault.deps, user!.id, { disabled: true })
    const plain = await cli(['users', 'reset-password', 'sleeper', '--password-stdin'], 'sleeper-password-2\n')
    expect(plain.stdout).toContain('The account is disabled; add --enable to re-enable it.')
    expect((await login('sleeper', 'sleeper-password-2')).status).toBe(401)
    expect(
      (await cli(['users', 'reset-password', 'sleeper', '--password-stdin', '--enable'], 'sleeper-password-3\n'))
        .status,
    ).toBe(0)
    expect((await login('sleeper', 'sleeper-password-3')).status).toBe(200)
  })

  it('lists users with their roles', async () => {
    const run = await cli(['users', 'list'])
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^maker\tadmin$/m)
    expect(run.stdout).toMatch(/^root\tsuperuser$/m)
  })

  it.each([
    [['users', 'create', 'maker'], 'The username "maker" is taken.'],
    [['users', 'reset-password', 'nobody'], 'No user is named "nobody".'],
  ])('refuses %j with a clear message and exit code 1', async (args, message) => {
    const run = await cli(args)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(message)
    expect(run.stderr).not.toMatch(/\n\s+at /)
  })

  it('refuses a too-short password from stdin', async () => {
    const run = await cli(['users', 'create', 'shorty', '--password-stdin'], 'short\n')
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('The password must be at least 12 characters long.')
  })

  it('refuses an unknown command or option, or a missing argument, with exit code 2 and the way to help', async () => {
    for (const [args, message] of [
      [['users', 'frobnicate'], "unknown command 'frobnicate'"],
      [['users', 'create'], "missing required argument 'username'"],
      [
        ['users', 'create', 'x', '--role', 'king'],
        "argument 'king' is invalid. Allowed choices are user, admin, superuser",
      ],
      [['--frobnicate'], "unknown option '--frobnicate'"],
      [['backup', 'verify'], "missing required argument 'archive'"],
    ] as const) {
      const run = await cli([...args])
      expect([run.status, run.stderr]).toEqual([2, expect.stringContaining(message)])
      expect(run.stderr).toContain('(add --help for usage)')
      expect(run.stderr).not.toMatch(/\n\s+at /)
    }
    // A command group alone shows its commands, and is a usage error.
    const bare = await cli(['users'])
    expect(bare.status).toBe(2)
    expect(bare.stderr).toContain('Usage: model-vault users [options] [command]')
  })

  it('prints its version, and help for each command with examples, with exit code 0', async () => {
    const version = await cli(['--version'])
    expect([version.status, version.stdout.trim()]).toEqual([0, (await import('../package.json')).default.version])
    const top = await cli(['--help'])
    expect(top.status).toBe(0)
    for (const command of ['upload', 'import', 'users', 'backup', 'blobs']) expect(top.stdout).toContain(command)
    expect(top.stdout).toContain('Exit codes: 0 done, 1 failed, 2 a usage error.')
    const users = await cli(['users', '--help'])
    expect(users.status).toBe(0)
    expect(users.stdout).toContain('Usage: model-vault users [options] [command]')
    expect(users.stdout).toContain('reset-password')
    const create = await cli(['users', 'create', '--help'])
    expect(create.stdout).toContain('--role <role>')
    expect(create.stdout).toContain('model-vault users create alice --role admin')
    const importHelp = await cli(['import', '--help'])
    expect(importHelp.stdout).toContain("model-vault import --template '{collection}/{model}' ~/Prints")
  })
})

describe('model-vault backup …', () => {
  it('creates a backup, lists it, and verifies the archive without a database', async () => {
    const created = await cli(['backup', 'create'])
    expect(created.status, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/^Backing up to model-vault-.*\.tar\.gz$/m)
    expect(created.stdout).toMatch(/^Complete: .* MiB, sha256 [0-9a-f]{64}$/m)
    const fileName = /Backing up to (\S+)/.exec(created.stdout)![1]!
    const list = await cli(['backup', 'list'])
    expect(list.stdout).toContain(`complete\t`)
    expect(list.stdout).toContain(fileName)

    const archive = join(vault.dataDir, 'backups', fileName)
    const verified = await cli(['backup', 'verify', archive], '', {
      VAULT_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    })
    expect(verified.status, verified.stderr).toBe(0)
    expect(verified.stdout).toMatch(
      /^OK: backup [0-9a-f-]{36} of .*, model-vault .*, schema \d+, (sqlite|postgres) database; \d+ models, \d+ files/,
    )
  })

  it('reports a damaged archive with exit code 1', async () => {
    const damaged = join(vault.dataDir, 'damaged.tar.gz')
    writeFileSync(damaged, 'definitely not a backup')
    const run = await cli(['backup', 'verify', damaged])
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('The backup archive is not usable')
  })
})
