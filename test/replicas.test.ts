import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fakeMoonraker } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { createS3Client } from '../src/adapters/s3/s3-client.js'
import { admin, adminEnv, call, expectProblem, login, type Reply, refresh, signIn } from './support/accounts.js'
import { waitForBackup } from './support/backups.js'
import { type BuiltService, startBuiltService } from './support/built-vault.js'
import { type RoundRobinProxy, startRoundRobinProxy } from './support/round-robin-proxy.js'
import { listObjectKeys, type S3TestServer, startS3Server } from './support/s3-server.js'
import { createTestDatabase, queryPostgres } from './support/test-database.js'
import { binaryCube, upload } from './support/uploads.js'

/**
 * Three service processes on one PostgreSQL database and one S3 bucket, with a shared backup
 * directory, behind a round-robin proxy: the scale-out recipe of docs/scaling.md. Each race sends the
 * same thing to several replicas at the same instant and counts what reached the shared state.
 */
const replicaCount = 3
let replicas: BuiltService[]
let proxy: RoundRobinProxy
let s3: S3TestServer
let bucket: string
let database: { url: string; drop: () => Promise<void> }
let root: string
let token: string

const each = <T>(work: (baseUrl: string, index: number) => Promise<T>) =>
  Promise.all(replicas.map((replica, index) => work(replica.baseUrl, index)))

const query = <T>(sql: string, values: unknown[] = []) => queryPostgres<T>(database.url, sql, values)

/** Repeats `request` while it answers 503 (a replica's gate opens within half a second of a restore's end). */
async function afterRestore(request: () => Promise<Reply>): Promise<Reply> {
  for (let i = 0; i < 50; i++) {
    const reply = await request()
    if (reply.status !== 503) return reply
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('still 503 five seconds after the restore')
}

// One PostgreSQL database shared by several processes: SQLite is one file for one process's install,
// so vitest.config.ts runs this file in the postgres project only.
describe('replicas on one PostgreSQL and one S3 bucket', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'vault-replicas-'))
    database = await createTestDatabase(root)
    s3 = await startS3Server()
    bucket = await s3.createBucket()
    const shared = {
      ...adminEnv,
      VAULT_DATABASE_URL: database.url,
      VAULT_STORAGE: 's3',
      VAULT_S3_ENDPOINT: s3.endpoint,
      VAULT_S3_BUCKET: bucket,
      VAULT_S3_ACCESS_KEY_ID: s3.accessKeyId,
      VAULT_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      VAULT_S3_FORCE_PATH_STYLE: 'true',
      VAULT_BACKUP_DIR: join(root, 'backups'),
      VAULT_PRINTER_STATUS_TTL_MS: '0',
      VAULT_PRINTER_CONFIRM_MS: '2000',
    }
    // All at once on the empty database, as `docker compose up` starts them: migrations, the first
    // superuser and the generated keys race too.
    replicas = await Promise.all(
      Array.from({ length: replicaCount }, (_, i) =>
        startBuiltService({ ...shared, VAULT_DATA_DIR: join(root, `replica-${i}`) }),
      ),
    )
    proxy = await startRoundRobinProxy(replicas.map((replica) => replica.baseUrl))
    token = (await signIn(proxy.url, admin)).access_token
  }, 180_000)
  afterAll(async () => {
    await proxy?.close()
    await Promise.all((replicas ?? []).map((replica) => replica.stop()))
    await s3?.stop()
    await database?.drop()
    await rm(root, { recursive: true, force: true })
  })

  it('start together on an empty database as one install: one superuser, one signing key for all', async () => {
    const instances = new Set<string>()
    for (let i = 0; i < replicaCount; i++)
      instances.add((await call(proxy.url, 'GET', '/api/v1/health')).body.service.instance_id)
    expect(instances.size).toBe(replicaCount)
    expect(await query('select username, role from users')).toEqual([{ username: admin.username, role: 'superuser' }])
    // A token signed by whichever replica answered the sign-in works on every replica.
    const seen = await each((baseUrl) => call(baseUrl, 'GET', '/api/v1/me', { token }))
    expect(seen.map((reply) => reply.status)).toEqual([200, 200, 200])
  })

  it('store one blob and one file for the same bytes uploaded to every replica at once', async () => {
    // G-code without a thumbnail: s3rver reads an object's files lazily on a HEAD and can trip over a
    // dozen identical thumbnails being written at once (an unhandled ENOENT inside the fake); the
    // race here is the blob's.
    const bytes = `; dedup race ${crypto.randomUUID()}\nG28\nG1 X10 Y10\n`
    const targets = [proxy.url, ...replicas.map((replica) => replica.baseUrl)]
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upload(targets[i % targets.length] as string, token, `race-${i}.gcode`, bytes),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(11).fill(200), 201])
    const sha256 = answers[0]?.body.file.sha256 as string
    expect(new Set(answers.map((answer) => answer.body.file.id)).size).toBe(1)
    expect(await query('select id from files where sha256 = $1', [sha256])).toHaveLength(1)
    const client = createS3Client(s3.configFor(bucket))
    try {
      const keys = await listObjectKeys(client, bucket, 'blobs/')
      expect(keys.filter((key) => key.endsWith(sha256))).toHaveLength(1)
      // Every upload's staging object was copied to the content key and removed.
      expect(keys.filter((key) => key.includes('.staging/'))).toEqual([])
    } finally {
      client.destroy()
    }
  })

  it('run one backup when two replicas are asked at the same instant', async () => {
    const [first, second] = replicas
    const answers = await Promise.all(
      [first, second].map((replica) => call(replica?.baseUrl as string, 'POST', '/api/v1/backups', { token })),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses).toEqual([202, 409])
    const started = answers.find((answer) => answer.status === 202) as Reply
    expectProblem(answers.find((answer) => answer.status === 409) as Reply, 409, 'maintenance_in_progress')
    // Any replica reports the backup the other one runs.
    expect((await waitForBackup(proxy.url, token, started.body.id)).status).toBe('complete')
    expect(await query(`select id from backups where status <> 'failed'`)).toEqual([{ id: started.body.id }])
  })

  it('detect a refresh token presented to two replicas at once as reuse, and end the session', async () => {
    const session = await signIn(proxy.url, admin)
    const [first, second] = replicas
    const answers = await Promise.all([
      refresh(first?.baseUrl as string, session.refresh_token),
      refresh(second?.baseUrl as string, session.refresh_token),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401])
    expectProblem(answers.find((answer) => answer.status === 401) as Reply, 401, 'refresh_token_reused')
    // The winner's new refresh token belongs to the revoked session: refused on every replica.
    const won = answers.find((answer) => answer.status === 200) as Reply
    const afterwards = await each((baseUrl) => refresh(baseUrl, won.body.refresh_token))
    expect(afterwards.map((answer) => answer.status)).toEqual([401, 401, 401])
  })

  it('count every failed sign-in across replicas and lock the account on all of them', async () => {
    const wrong = Array.from({ length: 9 }, (_, i) =>
      login(replicas[i % replicaCount]?.baseUrl as string, { username: admin.username, password: `wrong-${i}` }),
    )
    const answers = await Promise.all(wrong)
    expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true)
    const [counted] = await query<{ failures: number }>('select failures from login_failures where key = $1', [
      `account:${admin.username}`,
    ])
    // Requests refused with 429 were not checked, so not counted; every checked one was.
    expect(counted?.failures).toBe(answers.filter((answer) => answer.status === 401).length)
    expect(counted?.failures).toBeGreaterThanOrEqual(5)
    const right = await each((baseUrl) => login(baseUrl, admin))
    for (const reply of right) expectProblem(reply, 429, 'too_many_attempts')
    await query('delete from login_failures')
  })

  it('send to a printer exactly once when two replicas are asked at the same instant', async () => {
    const printer = await fakeMoonraker()
    try {
      // Slow status answers keep both sends in their readiness check together.
      printer.behaviour.slowStatusMs = 300
      const created = await call(proxy.url, 'POST', '/api/v1/printers', {
        token,
        json: { name: 'shared-voron', provider: 'moonraker', address: printer.url },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const gcode = await upload(proxy.url, token, 'race.gcode', 'G28\nG1 X10 Y10 F3000\nM84\n')
      expect(gcode.status, JSON.stringify(gcode.body)).toBe(201)
      const [first, second] = replicas
      const send = (baseUrl: string) =>
        call(baseUrl, 'POST', `/api/v1/printers/${created.body.id}/send`, {
          token,
          json: { file_id: gcode.body.file.id, start: true },
        })
      const answers = await Promise.all([send(first?.baseUrl as string), send(second?.baseUrl as string)])
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
      expect(answers.find((answer) => answer.status === 201)?.body.outcome).toBe('confirmed')
      expectProblem(answers.find((answer) => answer.status === 409) as Reply, 409, 'send_in_progress')
      const uploads = printer.requests.filter((request) => request.path === '/server/files/upload')
      expect(uploads).toHaveLength(1)
      expect(printer.state.printing).toBe('race.gcode')
    } finally {
      await printer.close()
    }
  })

  it('answer 503 on every replica while one restores, then serve the restored data on all', async () => {
    const kept = await upload(proxy.url, token, 'kept.stl', binaryCube(27.25))
    expect(kept.status).toBe(201)
    const backup = await call(proxy.url, 'POST', '/api/v1/backups', { token })
    expect(backup.status, JSON.stringify(backup.body)).toBe(202)
    expect((await waitForBackup(proxy.url, token, backup.body.id)).status).toBe('complete')
    // After the backup: one model goes, one comes; the restore brings the first back and drops the second.
    expect((await call(proxy.url, 'DELETE', `/api/v1/models/${kept.body.model.id}`, { token })).status).toBe(204)
    const later = await upload(proxy.url, token, 'later.stl', binaryCube(23.75))
    expect(later.status).toBe(201)

    const [restorer] = replicas
    const restoring = call(restorer?.baseUrl as string, 'POST', `/api/v1/backups/${backup.body.id}/restore`, { token })
    let done = false
    void restoring.finally(() => (done = true))
    const refused = new Set<number>()
    while (!done) {
      const answers = await each((baseUrl) => call(baseUrl, 'GET', '/api/v1/models', { token }))
      answers.forEach((answer, index) => {
        if (answer.status !== 503) return
        expectProblem(answer, 503, 'restore_in_progress')
        expect(answer.headers.get('retry-after')).toBe('10')
        expect(answer.body.restore.phase).toMatch(/^(verifying|safety_copy|swapping|finishing)$/)
        refused.add(index)
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const restored = await restoring
    expect(restored.status, JSON.stringify(restored.body)).toBe(200)
    expect([...refused].sort()).toEqual([0, 1, 2])

    // Every session ended; a sign-in on any replica gives a token every replica takes.
    const fresh = (await afterRestore(() => login(proxy.url, admin))).body.access_token as string
    const models = await each((baseUrl) =>
      afterRestore(() => call(baseUrl, 'GET', '/api/v1/models?limit=100', { token: fresh })),
    )
    for (const reply of models) {
      expect(reply.status).toBe(200)
      const ids = reply.body.items.map((model: { id: string }) => model.id)
      expect(ids).toContain(kept.body.model.id)
      expect(ids).not.toContain(later.body.model.id)
    }
  })

  it('lose no upload another replica acknowledged while one restores: each is kept or answered 503', async () => {
    const session = (await afterRestore(() => login(proxy.url, admin))).body.access_token as string
    const backup = await call(proxy.url, 'POST', '/api/v1/backups', { token: session })
    expect(backup.status, JSON.stringify(backup.body)).toBe(202)
    expect((await waitForBackup(proxy.url, session, backup.body.id)).status).toBe('complete')
    const [restorer, writer] = replicas as [BuiltService, BuiltService]
    // The writer has just looked for a restore, so its gate answers "none" for the next half second.
    expect((await call(writer.baseUrl, 'GET', '/api/v1/models', { token: session })).status).toBe(200)
    const restoring = call(restorer.baseUrl, 'POST', `/api/v1/backups/${backup.body.id}/restore`, { token: session })
    let done = false
    void restoring.finally(() => (done = true))
    while ((await query(`select 1 from locks where name = 'backup-restore' and purpose = 'restore'`)).length === 0)
      expect(done, 'the restore ended before its lock was seen').toBe(false)
    // Every upload from here on begins after the restore's lock row exists.
    const acknowledged: string[] = []
    let refused = 0
    const uploader = async (lane: number) => {
      for (let i = 0; !done; i++) {
        const reply = await upload(
          writer.baseUrl,
          session,
          `during-${lane}-${i}.gcode`,
          `; ${crypto.randomUUID()}\nG28\n`,
        )
        if (reply.status === 201) acknowledged.push(reply.body.file.id)
        else {
          expectProblem(reply, 503, 'restore_in_progress')
          refused++
        }
      }
    }
    await Promise.all([0, 1, 2, 3].map(uploader))
    const restored = await restoring
    expect(restored.status, JSON.stringify(restored.body)).toBe(200)
    expect(refused).toBeGreaterThan(0)
    const kept = await query<{ id: string }>('select id from files where id = any($1)', [acknowledged])
    expect(kept.map((row) => row.id).sort(), 'uploads answered 201 and then dropped by the swap').toEqual(
      [...acknowledged].sort(),
    )
  })
})
