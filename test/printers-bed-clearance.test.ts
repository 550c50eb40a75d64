import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakePrinter } from '../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker, type MoonrakerBehaviour } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { markBedOccupied } from '../src/core/printers/bed-clearance.js'
import { observePrinter } from '../src/core/printers/printers.js'
import { admin, adminEnv, call, expectProblem, newAccount, signIn } from './support/accounts.js'
import { shiftedClock } from './support/shifted-clock.js'
import { createTestVault, startTestVault, type TestVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { sliceShape, upload } from './support/uploads.js'

/**
 * Bed clearance: a printer with `require_bed_clear` is not ready after a job until someone
 * confirms the bed is clear, whoever started the job.
 */
// The virtual printers' jobs run on the vault's clock: moved on to finish them without waiting.
const clock = shiftedClock()
let vault: TestVault
let adminToken: string
let userToken: string
let gcodeId: string
let moonraker: FakePrinter<MoonrakerBehaviour>

beforeAll(async () => {
  vault = await startTestVault(
    { ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '0', VAULT_PRINTER_CONFIRM_MS: '2000' },
    { clock },
  )
  adminToken = (await signIn(vault.baseUrl, admin)).access_token
  userToken = (await newAccount(vault.baseUrl, adminToken)).token
  gcodeId = (await upload(vault.baseUrl, adminToken, 'pyramid.gcode', sliceShape('pyramid').gcode)).body.file.id
  moonraker = await fakeMoonraker()
})
afterAll(async () => {
  await moonraker?.close()
  await vault?.close()
})

async function register(json: Record<string, unknown>) {
  const reply = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
    token: adminToken,
    json: { name: `bench-${crypto.randomUUID().slice(0, 6)}`, provider: 'virtual', ...json },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body
}
const printer = async (id: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}`, { token: userToken })).body
const send = (id: string) =>
  call(vault.baseUrl, 'POST', `/api/v1/printers/${id}/send`, {
    token: userToken,
    json: { file_id: gcodeId, start: true },
  })
const confirmClear = (id: string, token = userToken) =>
  call(vault.baseUrl, 'POST', `/api/v1/printers/${id}/bed-cleared`, { token })

describe('bed clearance', () => {
  it('holds a finished printer back until someone confirms its bed is clear, then sends again', async () => {
    const bench = await register({
      address: 'virtual://bench?heat_seconds=0&print_seconds=0.8',
      require_bed_clear: true,
    })
    expect(bench).toMatchObject({ require_bed_clear: true, bed_occupied_since: null, status: { ready: true } })

    expect((await send(bench.id)).status).toBe(201)
    const printing = await printer(bench.id)
    expect(printing.status.state).toBe('printing')
    expect(printing.bed_occupied_since).toEqual(expect.any(String))
    // Nothing to confirm while the job is on the bed.
    expectProblem(await confirmClear(bench.id), 409, 'job_on_bed')

    clock.advance(900)
    const finished = await printer(bench.id)
    expect(finished.status).toMatchObject({
      state: 'idle',
      ready: false,
      reason: 'the last job finished; confirm the bed is clear to send the next job',
    })
    const refused = expectProblem(await send(bench.id), 409, 'printer_not_ready')
    expect(refused.detail).toContain('confirm the bed is clear')
    const dispatches = await call(vault.baseUrl, 'GET', `/api/v1/printers/${bench.id}/dispatches`, {
      token: userToken,
    })
    expect(dispatches.body.items[0]).toMatchObject({ outcome: 'refused', uploaded: false })

    const cleared = await confirmClear(bench.id)
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200)
    expect(cleared.body).toMatchObject({
      bed_occupied_since: null,
      status: { state: 'idle', ready: true, reason: 'the last job finished; the bed has been cleared since' },
    })
    expect((await send(bench.id)).status).toBe(201)
    expect((await printer(bench.id)).bed_occupied_since).toEqual(expect.any(String))
  })

  it('counts a job started at the printer itself, seen by any status read', async () => {
    const voron = await register({ provider: 'moonraker', address: moonraker.url, require_bed_clear: true })
    expect(voron.status).toMatchObject({ state: 'idle', ready: true })
    moonraker.state.printing = 'from_the_screen.gcode'
    // The list polls it too: any read records the job (a read slower than the list waits shows the last status, stale,
    // and the next one the job).
    const listed = async () =>
      (await call(vault.baseUrl, 'GET', '/api/v1/printers', { token: userToken })).body.items.find(
        (p: { id: string }) => p.id === voron.id,
      ).bed_occupied_since
    await expect.poll(listed, { timeout: 15_000 }).toEqual(expect.any(String))
    moonraker.state.printing = null
    expect((await printer(voron.id)).status).toMatchObject({
      state: 'idle',
      ready: false,
      reason: 'a job ran since the bed was last confirmed clear; confirm the bed is clear to send the next job',
    })
    expect((await confirmClear(voron.id)).body.status.ready).toBe(true)
  })

  it('never clears the bed of a job the vault saw begin while a confirmation was on its way (a second press, a retried request)', async () => {
    const voron = await register({ provider: 'moonraker', address: moonraker.url, require_bed_clear: true })
    moonraker.state.printing = 'first.gcode'
    expect((await printer(voron.id)).bed_occupied_since).toEqual(expect.any(String))
    moonraker.state.printing = null
    expect((await confirmClear(voron.id)).status).toBe(200)

    // The same press again, its status read slow; the queue sends the next job meanwhile, and the
    // vault sees it printing (the dispatcher's confirm step records the bed used).
    moonraker.behaviour.slowStatusMs = 400
    const asked = moonraker.requests.length
    const again = confirmClear(voron.id)
    await until(() => moonraker.requests.length > asked, 'the status read reached the printer')
    const row = await vault.deps.database.db
      .selectFrom('printers')
      .selectAll()
      .where('id', '=', voron.id)
      .executeTakeFirstOrThrow()
    await markBedOccupied(vault.deps, row)
    const refused = expectProblem(await again, 409, 'job_on_bed')
    expect(refused.detail).toContain('began a job just now')
    moonraker.behaviour.slowStatusMs = undefined
    // The new job's record stands: the next job waits for its own confirmation.
    expect(await printer(voron.id)).toMatchObject({
      bed_occupied_since: expect.any(String),
      status: { ready: false },
    })
    expect((await confirmClear(voron.id)).body).toMatchObject({ bed_occupied_since: null, status: { ready: true } })
    // A press on a bed already clear changes nothing and says so with the printer as it is.
    expect((await confirmClear(voron.id)).body).toMatchObject({ bed_occupied_since: null })
  })

  it('does not count the print taken off again from a status read before the confirmation (another process, a slow poll)', async () => {
    // A second process over the same database, whose statuses live a minute in its cache.
    const other = await createTestVault(
      { ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '60000' },
      { shareWith: vault, clock },
    )
    try {
      const voron = await register({ provider: 'moonraker', address: moonraker.url, require_bed_clear: true })
      const row = () =>
        vault.deps.database.db.selectFrom('printers').selectAll().where('id', '=', voron.id).executeTakeFirstOrThrow()
      moonraker.state.printing = 'plate.gcode'
      expect((await observePrinter(other.deps, await row())).status.state).toBe('printing')
      moonraker.state.printing = null
      expect((await confirmClear(voron.id)).body).toMatchObject({ bed_occupied_since: null, status: { ready: true } })

      // The other process still holds "printing" from before: it tells of the print just taken off.
      expect((await observePrinter(other.deps, await row())).status.state).toBe('printing')
      expect(await printer(voron.id)).toMatchObject({ bed_occupied_since: null, status: { ready: true } })

      // A print begun after the confirmation counts, whichever process sees it.
      moonraker.state.printing = 'next.gcode'
      const seen = await observePrinter(other.deps, await row(), { fresh: true })
      expect(seen.row.bed_occupied_since).toEqual(expect.any(String))
      moonraker.state.printing = null
      expect((await printer(voron.id)).status.ready).toBe(false)
    } finally {
      await other.close()
    }
  })

  it('keeps the record without the requirement, and holds the printer back as soon as it is switched on', async () => {
    const bench = await register({ address: 'virtual://bench?heat_seconds=0&print_seconds=0.3' })
    expect(bench.require_bed_clear).toBe(false)
    expect((await send(bench.id)).status).toBe(201)
    clock.advance(400)
    const done = await printer(bench.id)
    expect(done).toMatchObject({ bed_occupied_since: expect.any(String), status: { state: 'idle', ready: true } })

    const switched = await call(vault.baseUrl, 'PATCH', `/api/v1/printers/${bench.id}`, {
      token: adminToken,
      json: { require_bed_clear: true },
    })
    expect(switched.body).toMatchObject({ require_bed_clear: true, status: { ready: false } })
    // Only an admin changes the requirement; any user may confirm.
    expectProblem(
      await call(vault.baseUrl, 'PATCH', `/api/v1/printers/${bench.id}`, {
        token: userToken,
        json: { require_bed_clear: false },
      }),
      403,
      'insufficient_role',
    )
    expect((await confirmClear(bench.id)).body.status.ready).toBe(true)
  })

  it('refuses bad input without changing anything', async () => {
    const bench = await register({ address: 'virtual://bench' })
    const bad = await call(vault.baseUrl, 'PATCH', `/api/v1/printers/${bench.id}`, {
      token: adminToken,
      json: { require_bed_clear: 'yes' },
    })
    expect(bad.status).toBeGreaterThanOrEqual(400)
    expect(bad.status).toBeLessThan(500)
    expect(bad.headers.get('content-type')).toBe('application/problem+json')
    expect((await printer(bench.id)).require_bed_clear).toBe(false)
    expectProblem(await confirmClear('no-such-printer'), 404, 'not_found')
    expect((await call(vault.baseUrl, 'POST', `/api/v1/printers/${bench.id}/bed-cleared`)).status).toBe(401)
  })
})
