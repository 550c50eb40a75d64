import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest'
import { admin, adminEnv, call, newAccountWithKey, signIn } from './support/accounts.js'
import { backUp } from './support/backups.js'
import { cliArgs, setUpBuiltCli } from './support/built-cli.js'
import { filesUnder } from './support/leftovers.js'
import { createTestDatabase } from './support/test-database.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, bulkyGcode, sliceShape, upload } from './support/uploads.js'

setUpBuiltCli()

/**
 * `model-vault backup restore`, run as a process of its own: onto a fresh install, with a
 * damaged archive, and killed midway while a vault serves the same data directory and database.
 */
const databaseKind = inject('databaseKind')

interface CliRun {
  pid: number
  /** Resolves with the first match of `pattern` in stdout; rejects if the process ends first. */
  waitForOutput(pattern: RegExp): Promise<RegExpExecArray>
  exited: Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>
}

/** Spawns the CLI without blocking this process, which serves the vaults under test. */
function startCli(args: string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, cliArgs(...args), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let ended = false
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  const exited = new Promise<Awaited<CliRun['exited']>>((resolve) =>
    child.on('close', (status, signal) => {
      ended = true
      resolve({ status, signal, stdout, stderr })
    }),
  )
  return {
    pid: child.pid!,
    exited,
    async waitForOutput(pattern) {
      for (;;) {
        const match = pattern.exec(stdout)
        if (match) return match
        if (ended) throw new Error(`the CLI ended before printing ${pattern}:\n${stdout}\n${stderr}`)
        await sleep(10)
      }
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(5)
  }
}

const envOf = (install: { dataDir: string; databaseUrl: string }) => ({
  VAULT_DATA_DIR: install.dataDir,
  VAULT_DATABASE_URL: install.databaseUrl,
})
const listDir = (path: string) => (existsSync(path) ? readdirSync(path) : [])
const preRestoreCopies = (dataDir: string) =>
  listDir(join(dataDir, 'backups')).filter((name) => name.startsWith('pre-restore-'))

/** SHA-256 of what `path` serves, or null for a 404. */
async function downloadHash(baseUrl: string, token: string, path: string): Promise<string | null> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } })
  if (res.status === 404) return null
  expect(res.status, path).toBe(200)
  return createHash('sha256')
    .update(new Uint8Array(await res.arrayBuffer()))
    .digest('hex')
}

/** Everything users see of an install: each model with its files, the hashes of their bytes and thumbnails, and the users. */
async function installState(baseUrl: string, token: string) {
  const page = await call(baseUrl, 'GET', '/api/v1/models?limit=200&sort=name', { token })
  expect(page.status).toBe(200)
  const models = []
  for (const item of page.body.items) {
    const detail = await call(baseUrl, 'GET', `/api/v1/models/${item.id}`, { token })
    expect(detail.status).toBe(200)
    const files = []
    for (const file of detail.body.files) {
      files.push({
        id: file.id,
        content: await downloadHash(baseUrl, token, `/api/v1/files/${file.id}/content`),
        thumbnail: await downloadHash(baseUrl, token, `/api/v1/files/${file.id}/thumbnail`),
      })
    }
    models.push({
      model: detail.body,
      thumbnail: await downloadHash(baseUrl, token, `/api/v1/models/${item.id}/thumbnail`),
      files,
    })
  }
  const users = await call(baseUrl, 'GET', '/api/v1/admin/users', { token })
  expect(users.status).toBe(200)
  return { models, users: users.body.items }
}

/** A fresh data directory and a fresh, empty database of this project's kind: a new machine. */
async function freshInstall() {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-fresh-'))
  const database = await createTestDatabase(dataDir)
  return {
    dataDir,
    databaseUrl: database.url,
    async remove() {
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

describe('backup restore from the shell', () => {
  let original: TestVault
  let backup: { id: string; file_name: string }
  let maker: Awaited<ReturnType<typeof newAccountWithKey>>
  let before: Awaited<ReturnType<typeof installState>>
  beforeAll(async () => {
    original = await startTestVault(adminEnv)
    const token = (await signIn(original.baseUrl, admin)).access_token
    const sliced = sliceShape('cylinder')
    for (const [name, bytes] of [
      ['cylinder.stl', sliced.stl],
      ['cylinder.gcode', sliced.gcode],
      ['cylinder.3mf', sliced.threeMf],
      ['cube.stl', binaryCube(9)],
    ] as const) {
      expect((await upload(original.baseUrl, token, name, bytes)).status).toBe(201)
    }
    // Thumbnails rendered before the backup, so the install compared after the restore is the one backed up.
    await original.deps.analysis.idle()
    maker = await newAccountWithKey(original.baseUrl, token)
    backup = await backUp(original.baseUrl, token)
    expect(backup).toMatchObject({ status: 'complete' })
    before = await installState(original.baseUrl, token)
    expect(before.models.flatMap((entry) => entry.files).filter((file) => file.thumbnail).length).toBeGreaterThan(0)
  })
  afterAll(async () => original?.close())

  /** Restores with the CLI onto a fresh install, then starts the service there and compares it with the original. */
  async function restoreOntoFreshInstall(target: (fresh: { dataDir: string }) => string) {
    const fresh = await freshInstall()
    let restored: TestVault | undefined
    try {
      const run = await startCli(['backup', 'restore', target(fresh)], envOf(fresh)).exited
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain(`Restored backup ${backup.id} of `)
      const safetyCopy = /Safety copy of the previous database: (pre-restore-\S+\.tar\.gz)$/m.exec(run.stdout)?.[1]
      expect(preRestoreCopies(fresh.dataDir)).toEqual([safetyCopy])
      expect(run.stdout).toContain(`  ACTIVE   ${maker.key.prefix}  ${maker.username}\t${maker.key.name}`)

      // No VAULT_ADMIN_* here: the superuser and its password come from the backup.
      restored = await startTestVault(envOf(fresh))
      const token = (await signIn(restored.baseUrl, admin)).access_token
      expect(await installState(restored.baseUrl, token)).toEqual(before)
      expect((await signIn(restored.baseUrl, { username: maker.username, password: maker.password })).user.id).toBe(
        maker.user.id,
      )
      expect((await signIn(restored.baseUrl, { username: maker.username, api_key: maker.key.key })).user.id).toBe(
        maker.user.id,
      )
      const listed = await call(restored.baseUrl, 'GET', '/api/v1/backups', { token })
      expect(listed.body.items).toContainEqual(expect.objectContaining({ id: backup.id, status: 'complete' }))
    } finally {
      await restored?.close()
      await fresh.remove()
    }
  }

  it('restores an archive given by its path onto a fresh install: every model, file, thumbnail and user, and the admin password', async () => {
    await restoreOntoFreshInstall(() => join(original.dataDir, 'backups', backup.file_name))
  })

  it('restores a backup by id onto a fresh install once its archive is copied into the backup directory', async () => {
    await restoreOntoFreshInstall((fresh) => {
      mkdirSync(join(fresh.dataDir, 'backups'))
      copyFileSync(
        join(original.dataDir, 'backups', backup.file_name),
        join(fresh.dataDir, 'backups', backup.file_name),
      )
      return backup.id
    })
  })

  it.each([
    [
      'with bytes flipped in the middle',
      (bytes: Buffer) =>
        bytes.map((byte, i) => (i > bytes.length / 2 && i < bytes.length / 2 + 64 ? byte ^ 0xff : byte)),
    ],
    ['cut off', (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length * 0.8))],
  ])('refuses an archive %s with exit code 1 and changes nothing', async (_, damage) => {
    const token = (await signIn(original.baseUrl, admin)).access_token
    const dir = mkdtempSync(join(tmpdir(), 'vault-damaged-'))
    const damaged = join(dir, 'damaged.tar.gz')
    writeFileSync(damaged, damage(readFileSync(join(original.dataDir, 'backups', backup.file_name))))
    const backupsBefore = readdirSync(join(original.dataDir, 'backups'))
    try {
      const run = await startCli(['backup', 'restore', damaged], envOf(original)).exited
      expect(run.status).toBe(1)
      expect(run.stderr).toContain('Restore failed, nothing was changed: The backup archive is not usable')
      expect(run.stderr).not.toMatch(/\n\s+at /)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }

    expect((await call(original.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(200)
    expect(await installState(original.baseUrl, token)).toEqual(before)
    expect(readdirSync(join(original.dataDir, 'backups'))).toEqual(backupsBefore)
    for (const staging of ['blobs/.staging', 'thumbs/.staging', 'backups/.scratch'])
      expect(filesUnder(original.dataDir, [staging]), staging).toEqual([])
    // The maintenance lock was released: a backup starts at once.
    expect((await backUp(original.baseUrl, token)).status).toBe('complete')
  })

  it('refuses a path where there is no archive and leaves no lock behind', async () => {
    const missing = join(tmpdir(), `no-such-${crypto.randomUUID()}.tar.gz`)
    const { db } = original.deps.database
    try {
      const run = await startCli(['backup', 'restore', missing], envOf(original)).exited
      expect(run.status).toBe(1)
      expect(run.stderr).toContain(missing)
      expect(await db.selectFrom('locks').selectAll().execute()).toEqual([])
    } finally {
      await db.deleteFrom('locks').execute()
    }
  })
})

/**
 * Holds the live database the way a long transaction of the running service does, so that a
 * restore's swap has to wait for it: on PostgreSQL a read of `files` (psql's DROP TABLE waits
 * for it), on SQLite the write lock.
 */
async function holdDatabase(vault: TestVault): Promise<{ release(): Promise<void> }> {
  if (databaseKind === 'sqlite') {
    const connection = new SQLite(vault.databaseUrl.slice('sqlite:'.length))
    connection.exec('BEGIN IMMEDIATE')
    return {
      async release() {
        connection.exec('ROLLBACK')
        connection.close()
      },
    }
  }
  const client = new pg.Client({ connectionString: vault.databaseUrl })
  await client.connect()
  await client.query('BEGIN')
  await client.query('SELECT 1 FROM files LIMIT 1')
  return {
    async release() {
      await client.query('ROLLBACK')
      await client.end()
    },
  }
}

/** The restore's psql sessions (application name `model-vault-restore`) on the vault's PostgreSQL database. */
async function restoreSessions(vault: TestVault): Promise<{ state: string; wait_event_type: string | null }[]> {
  const client = new pg.Client({ connectionString: vault.databaseUrl })
  await client.connect()
  try {
    const sessions = await client.query(
      `SELECT state, wait_event_type FROM pg_stat_activity WHERE application_name = 'model-vault-restore' AND datname = current_database()`,
    )
    return sessions.rows
  } finally {
    await client.end()
  }
}

const psqlWaitsForLock = (vault: TestVault) =>
  waitFor('psql waiting for a lock', async () =>
    (await restoreSessions(vault)).some((session) => session.wait_event_type === 'Lock'),
  )

describe('backup restore from the shell, killed midway', () => {
  let vault: TestVault
  /** A session from before the restore attempts: a completed restore ends it. */
  let token: string
  let backup: { id: string; file_name: string }
  let atBackup: Awaited<ReturnType<typeof installState>>
  let prior: Awaited<ReturnType<typeof installState>>

  beforeAll(async () => {
    vault = await startTestVault(adminEnv)
    token = (await signIn(vault.baseUrl, admin)).access_token
    const doomed = [(await upload(vault.baseUrl, token, 'doomed.stl', binaryCube(11))).body.model.id]
    for (let i = 0; i < 16; i++) {
      const reply = await upload(vault.baseUrl, token, `bulky-${i}.gcode`, bulkyGcode(4))
      expect(reply.status).toBe(201)
      if (i < 4) doomed.push(reply.body.model.id)
    }
    await newAccountWithKey(vault.baseUrl, token)
    // Thumbnails rendered first: the states compared are the ones the backup and the install hold.
    await vault.deps.analysis.idle()
    backup = await backUp(vault.baseUrl, token)
    expect(backup).toMatchObject({ status: 'complete' })
    atBackup = await installState(vault.baseUrl, token)

    // After the backup: models go (a restore stages their 16 MiB again), one comes, a user is added.
    for (const id of doomed)
      expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${id}`, { token })).status).toBe(204)
    expect((await upload(vault.baseUrl, token, 'late.stl', binaryCube(5))).status).toBe(201)
    await newAccountWithKey(vault.baseUrl, token)
    await vault.deps.analysis.idle()
    prior = await installState(vault.baseUrl, token)
    expect(prior).not.toEqual(atBackup)
  }, 120_000)
  afterAll(async () => vault?.close())

  /**
   * A killed restore leaves its maintenance lock behind, no longer renewed: it lapses within a
   * minute (`db-lock.ts`). Rather than wait that long, each test moves its expiry into the past.
   */
  beforeEach(async () => {
    const { db } = vault.deps.database
    for (const lock of await db.selectFrom('locks').selectAll().execute()) {
      expect(lock.purpose).toBe('restore')
      expect(Date.parse(lock.expires_at)).toBeLessThanOrEqual(Date.now() + 60_000)
    }
    await db
      .updateTable('locks')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute()
  })

  /** Starts `backup restore <id>` and resolves once it stages the archive's database: it is reading and checking the archive. */
  async function startRestore(): Promise<CliRun> {
    const scratch = () => filesUnder(vault.dataDir, ['backups/.scratch'])
    const leftovers = new Set(scratch())
    const cli = startCli(['backup', 'restore', backup.id], envOf(vault))
    await waitFor('the database being staged', () => scratch().some((name) => !leftovers.has(name)))
    return cli
  }

  async function expectPriorState() {
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(200)
    expect(await installState(vault.baseUrl, token)).toEqual(prior)
  }

  it('leaves the install as it was when killed while it verifies and stages the archive', async () => {
    const staging = () => filesUnder(vault.dataDir, ['blobs/.staging'])
    const leftovers = new Set(staging())
    const cli = await startRestore()
    await waitFor('a blob the store lacks being staged', () => staging().some((name) => !leftovers.has(name)))
    process.kill(cli.pid, 'SIGKILL')
    expect((await cli.exited).signal).toBe('SIGKILL')

    expect(preRestoreCopies(vault.dataDir)).toEqual([])
    await expectPriorState()
  })

  it('leaves the install as it was when killed while its database swap waits for the live database', async () => {
    const cli = await startRestore()
    const held = await holdDatabase(vault)
    try {
      await cli.waitForOutput(/^ {2}swapping 100%/m)
      if (databaseKind === 'postgres') await psqlWaitsForLock(vault)
      expect(preRestoreCopies(vault.dataDir)).toHaveLength(1)
      process.kill(cli.pid, 'SIGKILL')
      expect((await cli.exited).signal).toBe('SIGKILL')
    } finally {
      await held.release()
    }
    if (databaseKind === 'postgres')
      await waitFor('psql to end', async () => (await restoreSessions(vault)).length === 0)

    await expectPriorState()
  })

  it('restores the same backup afterwards', async () => {
    const run = await startCli(['backup', 'restore', backup.id], envOf(vault)).exited
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain(`Restored backup ${backup.id} of `)
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(401)
    token = (await signIn(vault.baseUrl, admin)).access_token
    expect(await installState(vault.baseUrl, token)).toEqual(atBackup)
  })

  it('waits for a live database the service holds busy, then swaps it', async () => {
    const bulky = atBackup.models.find((entry) => entry.model.name.startsWith('bulky'))!.model.id
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${bulky}`, { token })).status).toBe(204)
    const copies = new Set(preRestoreCopies(vault.dataDir))
    const cli = await startRestore()
    const held = await holdDatabase(vault)
    try {
      // The safety copy is written just before the swap.
      await waitFor('the safety copy', () => preRestoreCopies(vault.dataDir).some((name) => !copies.has(name)))
      await (databaseKind === 'postgres' ? psqlWaitsForLock(vault) : sleep(500))
    } finally {
      await held.release()
    }
    const run = await cli.exited
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/^[1-9]\d* sessions ended/m)
    expect((await call(vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(401)
    token = (await signIn(vault.baseUrl, admin)).access_token
    expect(await installState(vault.baseUrl, token)).toEqual(atBackup)
  })
})
