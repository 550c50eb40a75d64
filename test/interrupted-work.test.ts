import { spawn } from 'node:child_process'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { interruptedBackupError } from '../src/core/backup/interrupted-work.js'
import { acquireLock } from '../src/core/runtime/db-lock.js'
import { maintenanceLockName, takeMaintenanceLock } from '../src/core/runtime/maintenance-lock.js'
import { admin, adminEnv, call, login, signIn } from './support/accounts.js'
import { backUp, waitForBackup } from './support/backups.js'
import { untilListening } from './support/built-vault.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { bulkyGcode, upload } from './support/uploads.js'

/**
 * Backups and restores whose process is killed with SIGKILL: the service itself runs as a second
 * process (through tsx, as `startup.test.ts` does) on the data directory and database of a vault
 * in this process, which stays up throughout as the other replica of one install.
 */
interface Service {
  baseUrl: string
  pid: number
  /** Resolves once the process has written `text` to stdout. */
  logged(text: string): Promise<void>
  /** Everything the process wrote to stdout (JSON log lines). */
  output(): string
  kill(): Promise<void>
}

async function startService(vault: TestVault, env: Record<string, string> = {}): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/adapters/node/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      VAULT_DATA_DIR: vault.dataDir,
      VAULT_DATABASE_URL: vault.databaseUrl,
      VAULT_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { baseUrl, exited, output } = await untilListening(child)
  return {
    baseUrl,
    pid: child.pid ?? 0,
    output,
    logged: (text) =>
      new Promise((resolve) => {
        const look = () => {
          if (!output().includes(text)) return
          child.stdout.off('data', look)
          resolve()
        }
        child.stdout.on('data', look)
        look()
      }),
    async kill() {
      child.kill('SIGKILL')
      await exited
    },
  }
}

let vault: TestVault
let token: string

const backupHealth = async (baseUrl: string) => {
  const reply = await call(baseUrl, 'GET', '/api/v1/health')
  return reply.body.components.backup as { status: string; reason?: string; details: Record<string, unknown> }
}
const getBackup = async (baseUrl: string, id: string) =>
  (await call(baseUrl, 'GET', `/api/v1/backups/${id}`, { token })).body
const maintenanceLock = () =>
  vault.deps.database.db.selectFrom('locks').selectAll().where('name', '=', maintenanceLockName).executeTakeFirst()

/** The record a backup running under the lock token `lockToken` has, as far as the database tells. */
async function insertRunningBackup(lockToken: string): Promise<string> {
  const id = crypto.randomUUID()
  await vault.deps.database.db
    .insertInto('backups')
    .values({
      id,
      status: 'running',
      file_name: `model-vault-test-${id}.tar.gz`,
      created_by: null,
      started_at: new Date().toISOString(),
      s3_status: 'not_configured',
      lock_token: lockToken,
    })
    .execute()
  return id
}

/** Starts a backup in `service` and kills the process while it runs (its lock held, its record running). */
async function killDuringBackup(service: Service): Promise<string> {
  const serviceToken = (await signIn(service.baseUrl, admin)).access_token
  const started = await call(service.baseUrl, 'POST', '/api/v1/backups', { token: serviceToken })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  expect(await maintenanceLock()).toMatchObject({ purpose: 'backup', pid: service.pid })
  await service.kill()
  expect(await getBackup(vault.baseUrl, started.body.id)).toMatchObject({ status: 'running', error: null })
  return started.body.id
}

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  // About 12 MiB that compresses poorly: backups and restores take a moment, long enough to be killed midway.
  for (let i = 0; i < 2; i++) {
    const reply = await upload(vault.baseUrl, token, `bulky-${i}.gcode`, bulkyGcode(6))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  }
}, 120_000)
afterAll(async () => vault?.close())

describe('a backup whose process was killed', () => {
  it('is failed as interrupted when the service starts again, and health warns until a backup completes', async () => {
    const id = await killDuringBackup(await startService(vault))

    const restarted = await startService(vault)
    try {
      expect(await getBackup(restarted.baseUrl, id)).toMatchObject({ status: 'failed', error: interruptedBackupError })
      expect(await backupHealth(restarted.baseUrl)).toMatchObject({
        status: 'warn',
        reason: expect.stringContaining('the last backup was interrupted: its process stopped'),
        details: { last_attempt: 'interrupted' },
      })
      // The stopped process's lock went with it at start-up: a new backup is accepted at once.
      const restartedToken = (await signIn(restarted.baseUrl, admin)).access_token
      expect(await backUp(restarted.baseUrl, restartedToken)).toMatchObject({ status: 'complete' })
      expect(await backupHealth(restarted.baseUrl)).toMatchObject({
        status: 'pass',
        details: { last_attempt: 'complete' },
      })
    } finally {
      await restarted.kill()
    }
  }, 120_000)

  it('does not hold the next backup off: a process on the same host takes its lock over at once', async () => {
    const id = await killDuringBackup(await startService(vault))
    // The lock's lease has not lapsed, but its process is gone.
    expect(Date.parse((await maintenanceLock())?.expires_at ?? '')).toBeGreaterThan(Date.now())
    expect(await backupHealth(vault.baseUrl)).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('the last backup was interrupted: its process stopped'),
      details: { last_attempt: 'interrupted' },
    })

    const next = await call(vault.baseUrl, 'POST', '/api/v1/backups', { token })
    expect(next.status, JSON.stringify(next.body)).toBe(202)
    expect(await getBackup(vault.baseUrl, id)).toMatchObject({ status: 'failed', error: interruptedBackupError })
    expect(vault.logs).toContainEqual(
      expect.objectContaining({ msg: 'a backup was interrupted: its process stopped', backups_failed: 1 }),
    )
    expect(await waitForBackup(vault.baseUrl, token, next.body.id)).toMatchObject({ status: 'complete' })
    expect((await backupHealth(vault.baseUrl)).status).toBe('pass')
  }, 120_000)
})

describe('a backup whose process is alive', () => {
  it('is neither failed nor taken over by a process that starts meanwhile', async () => {
    // This process holds the lock and runs a backup, as far as the database can tell.
    const { held } = await takeMaintenanceLock(vault.deps, 'backup')
    const id = await insertRunningBackup(held.token)
    const other = await startService(vault)
    try {
      expect(await getBackup(other.baseUrl, id)).toMatchObject({ status: 'running', error: null })
      const otherToken = (await signIn(other.baseUrl, admin)).access_token
      const refused = await call(other.baseUrl, 'POST', '/api/v1/backups', { token: otherToken })
      expect(refused.status).toBe(409)
      expect(refused.body.code).toBe('maintenance_in_progress')
      expect(await maintenanceLock()).toMatchObject({ owner: held.token })
      expect((await backupHealth(other.baseUrl)).details.last_attempt).toBe('running')
    } finally {
      await other.kill()
      await held.release()
    }
    // Released without finishing: the next backup fails its record.
    expect(await backUp(vault.baseUrl, token)).toMatchObject({ status: 'complete' })
    expect(await getBackup(vault.baseUrl, id)).toMatchObject({ status: 'failed', error: interruptedBackupError })
  }, 120_000)

  it('on another host is taken over only once its lease has lapsed', async () => {
    const { db } = vault.deps.database
    const owner = crypto.randomUUID()
    // Another host's process with a pid that does not run here: only its lease tells.
    await db
      .insertInto('locks')
      .values({
        name: maintenanceLockName,
        owner,
        purpose: 'backup',
        expires_at: new Date(Date.now() + 600_000).toISOString(),
        host_id: 'another-host/boot/pid:[1]',
        pid: 2 ** 22 + 1,
        instance_id: crypto.randomUUID(),
      })
      .execute()
    const id = await insertRunningBackup(owner)

    const refused = await call(vault.baseUrl, 'POST', '/api/v1/backups', { token })
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toMatch(/A backup is running/)
    expect(await getBackup(vault.baseUrl, id)).toMatchObject({ status: 'running' })
    expect((await backupHealth(vault.baseUrl)).details.last_attempt).toBe('running')

    await db
      .updateTable('locks')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('owner', '=', owner)
      .execute()
    expect((await backupHealth(vault.baseUrl)).details.last_attempt).toBe('interrupted')
    expect(await backUp(vault.baseUrl, token)).toMatchObject({ status: 'complete' })
    expect(await getBackup(vault.baseUrl, id)).toMatchObject({ status: 'failed', error: interruptedBackupError })
  }, 60_000)
})

describe('taking over the lock of a stopped holder', () => {
  it('lets exactly one of several racing processes have it', async () => {
    const second = await startTestVault(adminEnv, { shareWith: vault })
    try {
      const { db } = vault.deps.database
      await db
        .insertInto('locks')
        .values({
          name: maintenanceLockName,
          owner: crypto.randomUUID(),
          purpose: 'backup',
          expires_at: new Date(Date.now() - 1000).toISOString(),
          host_id: null,
          pid: null,
          instance_id: null,
        })
        .execute()
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => {
          const deps = i % 2 === 0 ? vault.deps : second.deps
          return acquireLock(deps.database.db, deps.clock, maintenanceLockName, 'backup', {
            instanceId: deps.service.instanceId,
            liveness: deps.liveness,
          })
        }),
      )
      const winners = attempts.flatMap((attempt) => ('held' in attempt ? [attempt.held] : []))
      expect(winners).toHaveLength(1)
      expect(await maintenanceLock()).toMatchObject({ owner: winners[0]?.token, pid: process.pid })
      await winners[0]?.release()
    } finally {
      await second.close()
    }
  }, 60_000)
})

describe('a restore whose process was killed', () => {
  it('leaves the install as it was, and a backup starts at once', async () => {
    const backup = await backUp(vault.baseUrl, token)
    const late = await upload(vault.baseUrl, token, 'late.gcode', 'G28\nG1 X1 Y1\n')
    expect(late.status).toBe(201)
    const models = (await call(vault.baseUrl, 'GET', '/api/v1/models', { token })).body

    const service = await startService(vault)
    const serviceToken = (await signIn(service.baseUrl, admin)).access_token
    const restoring = call(service.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, {
      token: serviceToken,
    }).catch((error: Error) => error)
    for (let i = 0; i < 2000 && (await maintenanceLock())?.purpose !== 'restore'; i++)
      await new Promise((resolve) => setTimeout(resolve, 5))
    expect(await maintenanceLock()).toMatchObject({ purpose: 'restore', pid: service.pid })
    await service.kill()
    expect(await restoring).toBeInstanceOf(Error)

    // Nothing was swapped: the same sessions and models, and no 409 from the dead restore's lock.
    expect((await call(vault.baseUrl, 'GET', '/api/v1/models', { token })).body).toEqual(models)
    expect(await backUp(vault.baseUrl, token)).toMatchObject({ status: 'complete' })
    expect(vault.logs).toContainEqual(
      expect.objectContaining({
        msg: 'a restore was interrupted before it swapped the backup in: the install is as it was before it',
      }),
    )
  }, 120_000)

  it("after its swap leaves the backup's data in place, and every process serves at once", async () => {
    const backup = await backUp(vault.baseUrl, token)
    const late = await upload(vault.baseUrl, token, 'after-the-backup.gcode', 'G28\nG1 X2 Y2\n')
    expect(late.status).toBe(201)

    // A backup bucket that never answers holds the restore in its steps after the swap (listing the
    // bucket for the catalogue) until it is killed there.
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const service = await startService(vault, {
      VAULT_BACKUP_S3_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      VAULT_BACKUP_S3_BUCKET: 'silent',
      VAULT_BACKUP_S3_ACCESS_KEY_ID: 'silent',
      VAULT_BACKUP_S3_SECRET_ACCESS_KEY: 'silent',
      VAULT_BACKUP_S3_FORCE_PATH_STYLE: 'true',
    })
    try {
      const serviceToken = (await signIn(service.baseUrl, admin)).access_token
      const swapped = service.logged('"msg":"backup restored"')
      const restoring = call(service.baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, {
        token: serviceToken,
      }).catch((error: Error) => error)
      await swapped
      await service.kill()
      expect(await restoring).toBeInstanceOf(Error)
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
    // The lock the swap wrote names the process it was written for, so everyone can tell it is gone.
    expect(await maintenanceLock()).toMatchObject({ purpose: 'restore', pid: service.pid })
    // This process, the other replica on the same host, serves at once (it looks every half second).
    const answered = Date.now()
    let signedIn = await login(vault.baseUrl, admin)
    while (signedIn.status === 503 && Date.now() - answered < 2000) signedIn = await login(vault.baseUrl, admin)
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200)
    token = signedIn.body.access_token

    const restarted = await startService(vault)
    try {
      // Its first answers, not after the 15 s lease: the lock went at start-up.
      expect((await call(restarted.baseUrl, 'GET', '/api/v1/health')).status).toBe(200)
      const restartedToken = (await signIn(restarted.baseUrl, admin)).access_token
      const models = await call(restarted.baseUrl, 'GET', '/api/v1/models?limit=100', { token: restartedToken })
      expect(models.body.items.map((model: { id: string }) => model.id)).not.toContain(late.body.model.id)
      expect(restarted.output()).toContain(
        `"msg":"a restore was interrupted after it swapped the backup in: the backup's data is in place"`,
      )
      expect(await maintenanceLock()).toBeUndefined()
    } finally {
      await restarted.kill()
    }
  }, 120_000)
})
