import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type DuetBehaviour, fakeDuet } from '../src/adapters/printers/duet/duet.fake.js'
import type { CommonBehaviour, FakePrinter } from '../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker, type MoonrakerBehaviour } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakeOctoPrint, type OctoPrintBehaviour } from '../src/adapters/printers/octoprint/octoprint.fake.js'
import { fakePrusaLink, type PrusaLinkBehaviour } from '../src/adapters/printers/prusalink/prusalink.fake.js'
import { admin, adminEnv, call, expectProblem, newAccount, signIn } from './support/accounts.js'
import { prusaBinaryGcode } from './support/binary-gcode.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { until } from './support/until.js'
import { sliceShape, upload } from './support/uploads.js'

let vault: TestVault
let token: string
let userToken: string
let gcodeId: string
let stlId: string
const fakes: FakePrinter[] = []
const secret = 'super-secret-api-key-0123456789'

beforeAll(async () => {
  vault = await startTestVault({
    ...adminEnv,
    VAULT_PRINTER_TIMEOUT_MS: '400',
    VAULT_PRINTER_STATUS_TTL_MS: '0',
    VAULT_PRINTER_CONFIRM_MS: '600',
  })
  token = (await signIn(vault.baseUrl, admin)).access_token
  userToken = (await newAccount(vault.baseUrl, token)).token
  const shape = sliceShape('box')
  gcodeId = (await upload(vault.baseUrl, token, 'box.gcode', shape.gcode)).body.file.id
  stlId = (await upload(vault.baseUrl, token, 'box.stl', shape.stl)).body.file.id
})
afterAll(async () => vault?.close())
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
})

async function register(provider: string, fake: FakePrinter | string, credentials?: Record<string, string>) {
  const reply = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
    token,
    json: {
      name: `${provider}-${crypto.randomUUID().slice(0, 6)}`,
      provider,
      address: typeof fake === 'string' ? fake : fake.url,
      ...(credentials ? { credentials } : {}),
    },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body
}
const send = (id: string, body: unknown) =>
  call(vault.baseUrl, 'POST', `/api/v1/printers/${id}/send`, { token: userToken, json: body })
const status = async (id: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}`, { token: userToken })).body.status

/** A fake printer from `start` behaving as `behaviour` says, with `printing` as its job's file, registered. */
async function registered<B extends CommonBehaviour>(
  provider: string,
  start: () => Promise<FakePrinter<B>>,
  credentials: Record<string, string>,
  behaviour: B,
  printing: string | null = null,
) {
  const fake = await start()
  fakes.push(fake)
  Object.assign(fake.behaviour, behaviour)
  fake.state.printing = printing
  return { fake, printer: await register(provider, fake, credentials) }
}

/** Sends box.gcode to a printer whose job then begins with heat-up (`heating`): its job during heat-up and after. */
async function jobThroughHeatUp({ fake, printer }: { fake: FakePrinter; printer: { id: string } }) {
  expect((await send(printer.id, { file_id: gcodeId, start: true })).body.outcome).toBe('confirmed')
  const heating = (await status(printer.id)).job
  fake.behaviour.heating = false
  return [heating, (await status(printer.id)).job]
}

/**
 * Per provider: the progress its fake's job shows, whether the host tells how a job that is over
 * ended (standalone RepRapFirmware names only its file), and how it refuses wrong credentials.
 */
const apiKeyRefused = { wrong: { api_key: 'wrong' }, reason: /refused our credentials \(HTTP 40[13]\)/ }
describe.each([
  ['moonraker', () => fakeMoonraker(secret), { api_key: secret }, { progress: 0.25, endsTold: true, ...apiKeyRefused }],
  [
    'octoprint',
    () => fakeOctoPrint(secret),
    { api_key: secret },
    { progress: 0.425, endsTold: true, ...apiKeyRefused },
  ],
  [
    'prusalink',
    () => fakePrusaLink({ username: 'maker', password: secret }),
    { username: 'maker', password: secret },
    {
      progress: 0.12,
      endsTold: true,
      wrong: { username: 'maker', password: 'wrong' },
      reason: /refused our credentials \(HTTP 40[13]\)/,
    },
  ],
  [
    'duet',
    () => fakeDuet(secret),
    { password: secret },
    {
      progress: 0.3,
      endsTold: false,
      wrong: { password: 'wrong' },
      reason: /refused the password \(rr_connect err 1\)/,
    },
  ],
] as const)('%s', (provider, start, credentials, expected) => {
  it('shows an idle printer with temperatures, sends real G-code, starts it and confirms it prints', async () => {
    const fake = await start()
    fakes.push(fake)
    const printer = await register(provider, fake, credentials)
    expect(printer.status).toMatchObject({ state: 'idle', ready: true, stale: false })
    expect(printer.status.temperatures.nozzle.actual).toBeGreaterThan(200)
    expect(printer.has_credentials).toBe(true)

    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({
      outcome: 'confirmed',
      uploaded: true,
      started: true,
      confirmed: true,
      remote_name: 'box.gcode',
      start_requested: true,
    })
    expect(fake.files.get('box.gcode')).toBeGreaterThan(1000)

    const listed = (await call(vault.baseUrl, 'GET', '/api/v1/printers', { token: userToken })).body.items.find(
      (p: { id: string }) => p.id === printer.id,
    )
    expect(listed.status).toMatchObject({
      state: 'printing',
      ready: false,
      job: { file_name: 'box.gcode', progress: expect.closeTo(expected.progress, 3) },
    })

    const again = await send(printer.id, { file_id: gcodeId, start: true })
    const problem = expectProblem(again, 409, 'printer_not_ready')
    expect(problem.detail).toContain('printing')
  })

  it('says so when the printer accepts the start but never prints (silent non-start)', async () => {
    const fake = await start()
    fakes.push(fake)
    fake.behaviour.silentStart = true
    const printer = await register(provider, fake, credentials)
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'not_confirmed', uploaded: true, started: true, confirmed: false })
  })

  it('confirms a job that ended before the first look, and never an earlier run of the same file', async () => {
    const fake = await start()
    fakes.push(fake)
    fake.behaviour.finishAtOnce = true
    const printer = await register(provider, fake, credentials)
    if (!expected.endsTold) {
      // The host never shows the job, nor how it ended: the vault says it could not confirm it.
      const unseen = await send(printer.id, { file_id: gcodeId, start: true })
      expect(unseen.status, JSON.stringify(unseen.body)).toBe(502)
      expect(unseen.body).toMatchObject({ outcome: 'not_confirmed', started: true, confirmed: false })
      expect((await status(printer.id)).job).toBeNull()
      return
    }
    const first = await send(printer.id, { file_id: gcodeId, start: true })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body).toMatchObject({ outcome: 'confirmed', started: true, confirmed: true })
    expect(first.body.detail).toContain('completed before the printer was first looked at')
    expect((await status(printer.id)).job).toMatchObject({ file_name: 'box.gcode', ended: 'completed' })

    // The printer now shows that completed run of box.gcode: a start it ignores must not pass for a new one.
    fake.behaviour.silentStart = true
    const ignored = await send(printer.id, { file_id: gcodeId, start: true })
    expect(ignored.status, JSON.stringify(ignored.body)).toBe(502)
    expect(ignored.body).toMatchObject({ outcome: 'not_confirmed', confirmed: false })

    // A second short run of the same file: hosts that number their runs tell it from the first.
    fake.behaviour.silentStart = false
    const second = await send(printer.id, { file_id: gcodeId, start: true })
    const numbered = provider !== 'octoprint'
    expect(second.status, JSON.stringify(second.body)).toBe(numbered ? 201 : 502)
    expect(second.body.outcome).toBe(numbered ? 'confirmed' : 'not_confirmed')
  })

  it('records a refused start after a successful upload', async () => {
    const fake = await start()
    fakes.push(fake)
    fake.behaviour.refuseStart = true
    const printer = await register(provider, fake, credentials)
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true, started: false, confirmed: false })
    const dispatches = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/dispatches`, {
      token: userToken,
    })
    expect(dispatches.body.items[0]).toMatchObject({ outcome: 'start_refused', file_id: gcodeId })
  })

  it('uploads without starting when start is false', async () => {
    const fake = await start()
    fakes.push(fake)
    const printer = await register(provider, fake, credentials)
    const reply = await send(printer.id, { file_id: gcodeId, start: false })
    expect(reply.status).toBe(201)
    expect(reply.body).toMatchObject({ outcome: 'uploaded', uploaded: true, started: false, confirmed: false })
    expect(fake.state.printing).toBeNull()
  })

  it('is offline with an authentication reason when the credentials are wrong', async () => {
    const fake = await start()
    fakes.push(fake)
    const printer = await register(provider, fake, expected.wrong)
    expect(printer.status).toMatchObject({ state: 'offline', ready: false })
    expect(printer.status.reason).toMatch(expected.reason)
    const diagnostics = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, {
      token: userToken,
    })
    expect(diagnostics.body).toMatchObject({ reachable: true, authenticated: false })
    expect(diagnostics.body.checks.find((c: { name: string }) => c.name === 'authentication').result).toBe('fail')
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
  })

  it('is offline within the timeout when the printer never answers, on garbage and on errors, never naming a secret', async () => {
    const silent = await start()
    const garbled = await start()
    const failing = await start()
    fakes.push(silent, garbled, failing)
    silent.behaviour.hang = true
    garbled.behaviour.garbage = true
    failing.behaviour.status = 500
    const started = Date.now()
    const hung = await register(provider, silent, credentials)
    expect(Date.now() - started).toBeLessThan(2000)
    expect(hung.status).toMatchObject({ state: 'offline', ready: false, reason: 'no answer within 400 ms' })
    const garbage = await register(provider, garbled, credentials)
    expect(garbage.status.state).toBe('offline')
    expect(garbage.status.reason).toMatch(/not JSON/)
    const broken = await register(provider, failing, credentials)
    expect(broken.status).toMatchObject({ state: 'offline', ready: false })
    expect(broken.status.reason).toMatch(/HTTP 500/)
    // The credentials travel in headers or, for a Duet board, in the login's query: no answer repeats them.
    for (const printer of [garbage, broken]) {
      const diagnostics = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, {
        token: userToken,
      })
      expect(JSON.stringify([printer, diagnostics.body])).not.toContain(secret)
    }
    expect(JSON.stringify(vault.logs)).not.toContain(secret)
  })

  it('reports identity and capabilities in diagnostics', async () => {
    const fake = await start()
    fakes.push(fake)
    const printer = await register(provider, fake, credentials)
    const reply = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token: userToken })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      reachable: true,
      authenticated: true,
      firmware_link: true,
      capabilities: { upload: true, start: true },
    })
    expect(reply.body.latency_ms).toBeGreaterThanOrEqual(0)
    expect(reply.body.identity.version).toBeTruthy()
    expect(reply.body.checks.find((c: { name: string }) => c.name === 'ready').result).toBe('pass')
  })
})

describe('sending', () => {
  it('refuses non-G-code, unknown files and unknown printers with clear 4xx answers', async () => {
    const printer = await register('virtual', 'virtual://bench')
    expectProblem(await send(printer.id, { file_id: stlId, start: false }), 422, 'not_gcode')
    expectProblem(await send(printer.id, { file_id: 'no-such-file', start: false }), 422, 'validation_failed')
    expectProblem(await send('no-such-printer', { file_id: gcodeId, start: false }), 404, 'not_found')
    expectProblem(await send(printer.id, { start: true }), 422, 'validation_failed')
  })

  it('a binary G-code goes, under its own .bgcode name, only to a printer that takes it (PrusaLink)', async () => {
    const bgcodeId = (await upload(vault.baseUrl, token, 'Bracket MK4.bgcode', prusaBinaryGcode(['Bracket.stl']))).body
      .file.id
    for (const other of [
      await register('virtual', 'virtual://bench'),
      await register('moonraker', 'http://127.0.0.1:9'),
    ]) {
      const refused = expectProblem(await send(other.id, { file_id: bgcodeId, start: false }), 422, 'not_gcode')
      expect(refused.detail).toContain('binary G-code (.bgcode)')
    }
    const fake = await fakePrusaLink({ username: 'maker', password: secret })
    fakes.push(fake)
    const prusa = await register('prusalink', fake, { username: 'maker', password: secret })
    const reply = await send(prusa.id, { file_id: bgcodeId, start: false })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({ outcome: 'uploaded', remote_name: 'Bracket_MK4.bgcode' })
    expect(fake.files.get('Bracket_MK4.bgcode')).toBe(prusaBinaryGcode(['Bracket.stl']).length)
  })

  it('OctoPrint: a stored file that was not selected is never started', async () => {
    const fake = await fakeOctoPrint(secret)
    fakes.push(fake)
    fake.behaviour.noSelect = true
    const printer = await register('octoprint', fake, { api_key: secret })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'upload_failed', uploaded: false })
    expect(reply.body.detail).toContain('effectiveSelect')
    expect(fake.requests.some((r) => r.method === 'POST' && r.path === '/api/job')).toBe(false)
  })

  it('an unreachable printer is offline and refuses work', async () => {
    const printer = await register('moonraker', 'http://127.0.0.1:9')
    expect(printer.status.state).toBe('offline')
    expect(printer.status.reason).toMatch(/could not be reached/)
    const reply = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(reply.errors).toContainEqual({ path: 'printer.state', message: 'offline' })
  })
})

describe('Moonraker against what a real Klipper does', () => {
  const registeredMoonraker = (behaviour: MoonrakerBehaviour = {}) =>
    registered('moonraker', () => fakeMoonraker(secret), { api_key: secret }, behaviour)

  it('is busy, not idle, while Klipper runs a command, and refuses a send until it is done', async () => {
    const { fake, printer } = await registeredMoonraker()
    fake.runCommand(1_500)
    expect(await status(printer.id)).toMatchObject({
      state: 'busy',
      ready: false,
      reason: expect.stringContaining('running a command'),
      raw: { print_state: 'standby', idle_timeout: 'Printing' },
    })
    const refused = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({ path: 'printer.state', message: 'busy' })
    expect(fake.files.size).toBe(0)
    // Klipper finishes the command.
    fake.state.busyUntil = 0
    expect(await status(printer.id)).toMatchObject({ state: 'idle', ready: true })
  })

  it('does not call a start that answers late a refusal: it confirms the print it then sees', async () => {
    // Longer than VAULT_PRINTER_TIMEOUT_MS (400), within it plus VAULT_PRINTER_CONFIRM_MS (600).
    const { printer } = await registeredMoonraker({ slowStartMs: 700 })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({ outcome: 'confirmed', uploaded: true, started: true, confirmed: true })
    expect(reply.body.steps).toContainEqual(
      expect.objectContaining({
        step: 'start',
        ok: false,
        detail: expect.stringContaining('checking whether it prints'),
      }),
    )
  })

  it('says the start got no answer, not that it was accepted, when the print never shows', async () => {
    const { printer } = await registeredMoonraker({ slowStartMs: 2_000 })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'not_confirmed', started: false, confirmed: false })
    expect(reply.body.detail).toContain('no answer in time')
  })

  it('says Moonraker is not connected to Klipper, before Klippy first connects and once it is lost', async () => {
    const { fake, printer } = await registeredMoonraker({ klippy: 'never-connected' })
    expect(printer.status).toMatchObject({ state: 'offline', reason: 'Moonraker is not connected to Klipper' })
    fake.behaviour.klippy = 'lost'
    expect(await status(printer.id)).toMatchObject({
      state: 'offline',
      reason: 'Moonraker is not connected to Klipper',
    })
  })

  it("gives Klipper's own reason for a shutdown in one line, and refuses work", async () => {
    const { printer } = await registeredMoonraker({
      klippy: {
        state: 'shutdown',
        message:
          '\nMCU \'mcu\' shutdown: Timer too close\nThis often indicates a host error.\nOnce the underlying issue is corrected, use the\n"FIRMWARE_RESTART" command to reset the firmware.\n',
      },
    })
    expect(printer.status).toMatchObject({
      state: 'error',
      reason: "Klipper is shut down: MCU 'mcu' shutdown: Timer too close",
    })
    const refused = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({
      path: 'printer.reason',
      message: "Klipper is shut down: MCU 'mcu' shutdown: Timer too close",
    })
  })

  it('gives elapsed time, time left and filament fed from the start of a job, heat-up included', async () => {
    // Heating and homing: Klipper's print_duration, progress and filament fed are still 0.
    const job = { file_name: 'box.gcode', elapsed_s: 75, ended: null, run_id: null }
    expect(await jobThroughHeatUp(await registeredMoonraker({ heating: true, filamentUsedMm: 412.7 }))).toEqual([
      { ...job, progress: 0, time_left_s: 3600, filament_used_mm: 0 },
      { ...job, progress: 0.25, time_left_s: 3540, filament_used_mm: 412.7 },
    ])
  })

  it('does not call a printer stale that answers every status a little slowly, as Klipper does', async () => {
    // A vault whose printer timeout leaves room for a 500 ms answer, twice the former fixed 300 ms wait.
    const patient = await startTestVault({
      ...adminEnv,
      VAULT_PRINTER_TIMEOUT_MS: '3000',
      VAULT_PRINTER_STATUS_TTL_MS: '0',
    })
    try {
      const fake = await fakeMoonraker(secret)
      fakes.push(fake)
      fake.behaviour.slowStatusMs = 500
      const adminToken = (await signIn(patient.baseUrl, admin)).access_token
      const printer = await call(patient.baseUrl, 'POST', '/api/v1/printers', {
        token: adminToken,
        json: { name: 'slow-klipper', provider: 'moonraker', address: fake.url, credentials: { api_key: secret } },
      })
      const seen = []
      for (let i = 0; i < 3; i++) {
        const read = await call(patient.baseUrl, 'GET', `/api/v1/printers/${printer.body.id}`, { token: adminToken })
        seen.push(read.body.status)
      }
      expect(seen.map((observed) => [observed.stale, observed.ready])).toEqual([
        [false, true],
        [false, true],
        [false, true],
      ])
    } finally {
      await patient.close()
    }
  })

  it('takes work after a failed job, as Klipper does, saying why the last one failed', async () => {
    // Real Klipper keeps print_stats at `error` until the next job, which it accepts.
    const { fake, printer } = await registeredMoonraker({ jobError: 'Move out of range: 250.000 0.000 0.300 [0.000]' })
    expect(printer.status).toMatchObject({
      state: 'idle',
      ready: true,
      reason:
        'the last job ended with an error (Move out of range: 250.000 0.000 0.300 [0.000]); make sure the bed is clear',
    })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.body).toMatchObject({ outcome: 'confirmed' })
    expect(fake.state.printing).toBe('box.gcode')
  })

  it('is paused with its job shown while Klipper pauses, and refuses work', async () => {
    const { fake, printer } = await registeredMoonraker({ jobState: 'paused' })
    fake.state.printing = 'benchy.gcode'
    expect(await status(printer.id)).toMatchObject({
      state: 'paused',
      ready: false,
      job: { file_name: 'benchy.gcode', progress: 0.25 },
    })
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(fake.files.size).toBe(0)
  })

  it.each([
    ['complete', 'the last job completed; make sure the bed is clear', 0],
    ['cancelled', 'the last job was cancelled; make sure the bed is clear', 215],
  ] as const)(
    'takes the next job after a %s one, showing how it ended and the target left on',
    async (jobState, reason, target) => {
      const { fake, printer } = await registeredMoonraker({ jobState })
      fake.state.printing = 'benchy.gcode'
      const seen = await status(printer.id)
      expect(seen).toMatchObject({ state: 'idle', ready: true, reason, raw: { print_state: jobState } })
      // After a cancel Klipper keeps the hotend's target: the status shows it.
      expect(seen.temperatures.nozzle.target).toBe(target)
      expect((await send(printer.id, { file_id: gcodeId, start: true })).body).toMatchObject({ outcome: 'confirmed' })
      expect(fake.state.printing).toBe('box.gcode')
    },
  )

  it('sends to one printer one at a time: a second send meanwhile is refused with nothing sent, not started onto the first job', async () => {
    // The start waits behind Klipper's queue, so the first send is still under way when the second comes.
    const { fake, printer } = await registeredMoonraker({ slowStartMs: 300 })
    const first = send(printer.id, { file_id: gcodeId, start: true })
    await until(() => fake.requests.some((r) => r.path === '/printer/print/start'), 'the first send asks for the start')
    const second = await send(printer.id, { file_id: gcodeId, start: true })
    expect((await first).body).toMatchObject({ outcome: 'confirmed' })
    expect(expectProblem(second, 409, 'send_in_progress').detail).toContain('nothing was sent')
    expect(fake.requests.filter((r) => r.path === '/server/files/upload')).toHaveLength(1)
    const dispatches = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/dispatches`, { token })
    expect(dispatches.body.items.map((d: { outcome: string }) => d.outcome).sort()).toEqual(['confirmed', 'refused'])
    // Once it prints, Klipper itself refuses a start onto the running job ("SD busy"); the vault never asks.
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
  })

  it('leaves out a heated bed the printer does not have, and lists only extensions it opens', async () => {
    const { printer } = await registeredMoonraker({ noBed: true })
    expect(printer.status.temperatures).toEqual({ nozzle: { actual: 210.4, target: 215 }, bed: null })
    const diagnostics = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token })
    expect(diagnostics.body.capabilities.accepted_extensions).toEqual(['.gcode', '.g', '.gco'])
  })

  it("says what Klipper's config lacks, in the status and in diagnostics", async () => {
    const { printer } = await registeredMoonraker({ noVirtualSdcard: true })
    expect(printer.status).toMatchObject({ state: 'error', reason: expect.stringContaining('[virtual_sdcard]') })
    const diagnostics = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token })
    expect(diagnostics.body.checks).toContainEqual({
      name: 'klipper_config',
      result: 'fail',
      detail: "Klipper's config lacks [virtual_sdcard], which Moonraker needs",
    })
  })

  it('says credentials are missing, not refused, when none are set', async () => {
    const fake = await fakeMoonraker(secret)
    fakes.push(fake)
    const printer = await register('moonraker', fake)
    expect(printer.status).toMatchObject({ state: 'offline', reason: expect.stringContaining('none are set') })
  })

  it('names the file on the printer with a lower-case extension, which Klipper can open', async () => {
    const shouting = Buffer.concat([sliceShape('box').gcode, Buffer.from('\n; saved as upper case\n')])
    const file = (await upload(vault.baseUrl, token, 'My_Part_v2_.GCODE', shouting)).body.file
    expect(file.name).toBe('My_Part_v2_.GCODE')
    const { fake, printer } = await registeredMoonraker()
    const reply = await send(printer.id, { file_id: file.id, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({ outcome: 'confirmed', remote_name: 'My_Part_v2_.gcode' })
    expect(fake.state.printing).toBe('My_Part_v2_.gcode')
  })
})

describe('OctoPrint against what a real OctoPrint does', () => {
  const registeredOctoPrint = (behaviour: OctoPrintBehaviour = {}) =>
    registered('octoprint', () => fakeOctoPrint(secret), { api_key: secret }, behaviour)
  const uploadsSeen = (fake: FakePrinter) => fake.requests.filter((r) => r.path === '/api/files/local').length

  it('is offline while OctoPrint is not connected to the printer or still connecting, and refuses work', async () => {
    const { fake, printer } = await registeredOctoPrint({ link: 'Offline' })
    expect(printer.status).toMatchObject({
      state: 'offline',
      ready: false,
      reason: 'OctoPrint is not connected to the printer',
      temperatures: { nozzle: null, bed: null },
      job: null,
    })
    for (const step of ['Opening serial connection', 'Detecting serial connection', 'Connecting'] as const) {
      fake.behaviour.link = step
      expect(await status(printer.id)).toMatchObject({
        state: 'offline',
        reason: `OctoPrint is connecting to the printer (${step})`,
      })
    }
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(uploadsSeen(fake)).toBe(0)
  })

  it("gives OctoPrint's own error in one line, after an error that closed the port and in Error", async () => {
    const { fake, printer } = await registeredOctoPrint({
      link: {
        state: 'Offline after error',
        error: 'Too many consecutive timeouts, printer still connected and alive?',
      },
    })
    expect(printer.status).toMatchObject({
      state: 'offline',
      reason:
        'OctoPrint closed the connection to the printer after an error: Too many consecutive timeouts, printer still connected and alive?',
    })
    fake.behaviour.link = { state: 'Error', error: 'Printer halted. kill() called!' }
    expect(await status(printer.id)).toMatchObject({
      state: 'error',
      ready: false,
      reason: 'OctoPrint reports an error: Printer halted. kill() called!',
    })
    const refused = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({
      path: 'printer.reason',
      message: 'OctoPrint reports an error: Printer halted. kill() called!',
    })
    expect(uploadsSeen(fake)).toBe(0)
    const diagnostics = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token })
    expect(diagnostics.body.firmware_link).toBe(false)
    expect(diagnostics.body.checks).toContainEqual({
      name: 'printer connection',
      result: 'fail',
      detail: 'OctoPrint reports "Error"',
    })
  })

  it('follows a job through its phases: busy while it pauses, resumes or cancels, printing while it finishes', async () => {
    const { fake, printer } = await registeredOctoPrint()
    fake.state.printing = 'other.gcode'
    const phases = {
      Starting: { state: 'printing', reason: null },
      Pausing: { state: 'busy', reason: 'pausing a job' },
      Paused: { state: 'paused', reason: null },
      Resuming: { state: 'busy', reason: 'resuming a job' },
      Cancelling: { state: 'busy', reason: 'cancelling a job' },
      Finishing: { state: 'printing', reason: 'finishing the job' },
    } as const
    for (const [phase, expected] of Object.entries(phases)) {
      fake.behaviour.jobPhase = phase as keyof typeof phases
      expect(await status(printer.id), phase).toMatchObject({
        ...expected,
        ready: false,
        job: { file_name: 'other.gcode', progress: 0.425 },
      })
    }
    const refused = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({ path: 'printer.state', message: 'printing' })
    expect(uploadsSeen(fake)).toBe(0)
  })

  it('is busy, not printing, while OctoPrint copies a file to the SD card', async () => {
    const { fake, printer } = await registeredOctoPrint({ sdTransfer: 'big.gcode' })
    expect(printer.status).toMatchObject({
      state: 'busy',
      ready: false,
      reason: "OctoPrint is copying a file to the printer's SD card",
      raw: { state_text: 'Sending file to SD' },
    })
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(uploadsSeen(fake)).toBe(0)
  })

  it('shows progress and times as OctoPrint gives them, time left unknown while it still estimates', async () => {
    expect(await jobThroughHeatUp(await registeredOctoPrint({ heating: true }))).toEqual([
      { file_name: 'box.gcode', progress: 0, elapsed_s: 35, time_left_s: null, ended: null, run_id: null },
      { file_name: 'box.gcode', progress: 0.425, elapsed_s: 510, time_left_s: 690, ended: null, run_id: null },
    ])
  })

  it('shows no job for a file OctoPrint only selected, and no bed the printer profile lacks', async () => {
    const { fake, printer } = await registeredOctoPrint({ noBed: true })
    expect((await send(printer.id, { file_id: gcodeId, start: false })).body.outcome).toBe('uploaded')
    expect(fake.state.printing).toBeNull()
    expect(await status(printer.id)).toMatchObject({
      state: 'idle',
      ready: true,
      job: null,
      temperatures: { nozzle: { actual: 214.8, target: 215 }, bed: null },
    })
  })

  it("records OctoPrint's own reason when it refuses the start", async () => {
    const { printer } = await registeredOctoPrint({ refuseStart: true })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true, started: false, confirmed: false })
    expect(reply.body.detail).toBe(
      "Stored as box.gcode, but the printer refused to start it: the start command answered HTTP 409 (Printer already has an active print job, did you mean 'restart'?)",
    )
  })

  it('stays ready when status answers take a while within the timeout', async () => {
    const { printer } = await registeredOctoPrint({ slowStatusMs: 250 })
    expect(printer.status).toMatchObject({ state: 'idle', ready: true, stale: false })
  })
})

describe('PrusaLink against what a real PrusaLink does', () => {
  const digest = { username: 'maker', password: secret }
  const registeredPrusaLink = (behaviour: PrusaLinkBehaviour = {}, printing?: string) =>
    registered('prusalink', () => fakePrusaLink(digest), digest, behaviour, printing)
  const uploadsSeen = (fake: FakePrinter) => fake.requests.filter((r) => r.method === 'PUT').length

  it('confirms a print on Buddy firmware, which names the job by its short name, by the long one', async () => {
    const { fake, printer } = await registeredPrusaLink()
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(fake.state.printing).toBe('box.gcode')
    expect((await status(printer.id)).job).toEqual({
      file_name: 'box.gcode',
      progress: 0.12,
      elapsed_s: 400,
      time_left_s: 3000,
      ended: null,
      run_id: '8',
    })
  })

  it('takes the next job after a finished or stopped one, saying how it ended, as the printer does', async () => {
    for (const [ended, reason] of [
      ['FINISHED', 'the last job finished; make sure the bed is clear'],
      ['STOPPED', 'the last job was stopped; make sure the bed is clear'],
    ] as const) {
      const { fake, printer } = await registeredPrusaLink({ printer: ended }, 'last.gcode')
      expect(printer.status, ended).toMatchObject({
        state: 'idle',
        ready: true,
        reason,
        job: { file_name: 'last.gcode' },
        raw: { state: ended },
      })
      expect((await send(printer.id, { file_id: gcodeId, start: true })).body.outcome).toBe('confirmed')
      expect(fake.state.printing).toBe('box.gcode')
    }
  })

  it('is idle and ready when marked READY at the printer, paused when paused', async () => {
    const ready = await registeredPrusaLink({ printer: 'READY' })
    expect(ready.printer.status).toMatchObject({ state: 'idle', ready: true, reason: null })
    const paused = await registeredPrusaLink({ printer: 'PAUSED' }, 'other.gcode')
    expect(paused.printer.status).toMatchObject({ state: 'paused', ready: false, job: { file_name: 'other.gcode' } })
  })

  it('is busy at a calibration, preheat or menu, and refuses work without sending anything', async () => {
    const { fake, printer } = await registeredPrusaLink({ printer: 'BUSY' })
    expect(printer.status).toMatchObject({
      state: 'busy',
      ready: false,
      reason: 'the printer is busy at its screen (a calibration, preheat, filament load or menu)',
    })
    const refused = expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({ path: 'printer.state', message: 'busy' })
    expect(uploadsSeen(fake)).toBe(0)
  })

  it('takes no work while the printer waits for someone at its screen (ATTENTION), its job shown', async () => {
    const { fake, printer } = await registeredPrusaLink({ printer: 'ATTENTION' }, 'other.gcode')
    expect(printer.status).toMatchObject({
      state: 'error',
      ready: false,
      reason: 'the printer waits for someone to answer a question or warning on its screen',
      job: { file_name: 'other.gcode', progress: 0.12 },
    })
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(uploadsSeen(fake)).toBe(0)
  })

  it("gives Prusa-Link's own reason for an error, and no 'OK' when it has none", async () => {
    const { fake, printer } = await registeredPrusaLink({
      printer: 'ERROR',
      printerProblem: 'Serial device does not exist',
    })
    expect(printer.status).toMatchObject({
      state: 'error',
      ready: false,
      reason: 'the printer reports an error: Serial device does not exist',
    })
    fake.behaviour.printerProblem = undefined
    expect(await status(printer.id)).toMatchObject({ state: 'error', reason: 'the printer reports an error' })
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
  })

  it('shows no temperatures before the printer sends any, and no time left before it has an estimate', async () => {
    const { fake, printer } = await registeredPrusaLink({ noTelemetry: true, heating: true })
    expect(printer.status).toMatchObject({ state: 'idle', temperatures: { nozzle: null, bed: null } })
    expect((await send(printer.id, { file_id: gcodeId, start: true })).body.outcome).toBe('confirmed')
    expect((await status(printer.id)).job).toEqual({
      file_name: 'box.gcode',
      progress: 0,
      elapsed_s: 35,
      time_left_s: null,
      ended: null,
      run_id: '8',
    })
    fake.behaviour.noTelemetry = false
    expect((await status(printer.id)).temperatures).toEqual({
      nozzle: { actual: 214.9, target: 215 },
      bed: { actual: 59.7, target: 60 },
    })
  })

  it("answers the printer's new nonce when the last one went stale, as Buddy renews it every few seconds", async () => {
    // Status reads slower than a nonce lives: the start comes on a stale nonce, and is answered again.
    const { fake, printer } = await registeredPrusaLink({ nonceLifetimeMs: 150, slowStatusMs: 200 })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(fake.requests.filter((r) => r.method === 'POST').length).toBe(2)
  })

  it("records PrusaLink's own reason when it refuses the start, and sends a file again over the old one", async () => {
    const { fake, printer } = await registeredPrusaLink({ refuseStart: true })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true, started: false })
    expect(reply.body.detail).toBe(
      'Stored as box.gcode, but the printer refused to start it: the start command answered HTTP 409 (Printer is not in state to print.)',
    )
    // PrusaLink refuses (409) to replace a stored file unless asked to overwrite it.
    expect((await send(printer.id, { file_id: gcodeId, start: false })).body.outcome).toBe('uploaded')
    expect(uploadsSeen(fake)).toBe(2)
  })
})

describe('Duet against what RepRapFirmware does', () => {
  const registeredDuet = async (behaviour: DuetBehaviour = {}, printing?: string) => {
    const fake = await fakeDuet(secret)
    const { printer } = await registered('duet', async () => fake, { password: secret }, behaviour, printing)
    return { fake, printer }
  }

  it.each([
    ['starting', 'busy', 'starting up'],
    ['updating', 'busy', 'updating its firmware'],
    ['simulating', 'busy', 'simulating a file'],
    ['changingTool', 'busy', 'changing tools'],
    ['pausing', 'busy', 'pausing a job'],
    ['cancelling', 'busy', 'cancelling a job'],
    ['paused', 'paused', null],
    ['halted', 'error', 'halted'],
    ['off', 'error', 'no motor power'],
    ['disconnected', 'offline', 'not connected to the board'],
  ] as const)('reports a board that is %s as %s, and sends it nothing', async (board, state, reason) => {
    const { fake, printer } = await registeredDuet({ board }, board === 'paused' ? 'box.gcode' : undefined)
    expect(printer.status).toMatchObject({ state, ready: false, raw: { status: board } })
    if (reason) expect(printer.status.reason).toContain(reason)
    expectProblem(await send(printer.id, { file_id: gcodeId, start: true }), 409, 'printer_not_ready')
    expect(fake.files.size).toBe(0)
  })

  it('is busy while a macro runs, and takes the send once it is done', async () => {
    const { fake, printer } = await registeredDuet()
    fake.runCommand(60_000)
    expect(await status(printer.id)).toMatchObject({ state: 'busy', ready: false })
    fake.state.busyUntil = 0
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(fake.state.printing).toBe('box.gcode')
  })

  it('keeps one session across status reads, logs in again once it lapsed, and says when the board has none free', async () => {
    const { fake, printer } = await registeredDuet()
    for (let read = 0; read < 3; read++) expect((await status(printer.id)).state).toBe('idle')
    expect(fake.logins).toHaveLength(1)
    fake.expireSessions()
    expect((await status(printer.id)).state).toBe('idle')
    expect(fake.logins).toHaveLength(2)

    const { printer: crowded } = await registeredDuet({ sessionsFull: true })
    expect(crowded.status).toMatchObject({ state: 'offline', ready: false })
    expect(crowded.status.reason).toContain('no free session')
  })

  it("records the board's own reason when it refuses the start", async () => {
    const { printer } = await registeredDuet({ refuseStart: true })
    const reply = await send(printer.id, { file_id: gcodeId, start: true })
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true, started: false })
    expect(reply.body.detail).toContain('Error: M32: Cannot set file to print')
  })

  it('shows a job just begun without progress or time left, and a board without a bed or heaters without their temperatures', async () => {
    const heating = await registeredDuet({ heating: true })
    expect(await jobThroughHeatUp(heating)).toEqual([
      { file_name: 'box.gcode', progress: 0, time_left_s: null, elapsed_s: 35, ended: null, run_id: null },
      expect.objectContaining({ file_name: 'box.gcode', time_left_s: 900, elapsed_s: 400 }),
    ])
    const { printer: bedless } = await registeredDuet({ noBed: true })
    expect(bedless.status.temperatures).toEqual({ nozzle: { actual: 214.7, target: 0 }, bed: null })
    const { printer: bare } = await registeredDuet({ noHeaters: true })
    expect(bare.status).toMatchObject({ state: 'idle', ready: true, temperatures: { nozzle: null, bed: null } })
  })

  it('reaches a board without a password, and lists its kind among the providers', async () => {
    const fake = await fakeDuet()
    fakes.push(fake)
    const printer = await register('duet', fake)
    expect(printer).toMatchObject({ has_credentials: false, status: { state: 'idle', ready: true } })
    expect(fake.logins).toEqual([''])
    const providers = await call(vault.baseUrl, 'GET', '/api/v1/printer-providers', { token: userToken })
    expect(providers.body.items.find((p: { name: string }) => p.name === 'duet')).toMatchObject({
      label: 'Duet (RepRapFirmware)',
      credentials: { properties: { password: { format: 'password' } } },
    })
  })
})

describe('credentials', () => {
  it('are encrypted at rest and never appear in answers or logs', async () => {
    const fake = await fakeMoonraker(secret)
    fakes.push(fake)
    const printer = await register('moonraker', fake, { api_key: secret })
    await send(printer.id, { file_id: gcodeId, start: true })
    const answers = [
      await call(vault.baseUrl, 'GET', '/api/v1/printers', { token }),
      await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}`, { token }),
      await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token }),
      await call(vault.baseUrl, 'PATCH', `/api/v1/printers/${printer.id}`, {
        token,
        json: { name: `renamed-${printer.id.slice(0, 6)}` },
      }),
      await call(vault.baseUrl, 'GET', '/api/v1/dispatches', { token }),
      await call(vault.baseUrl, 'GET', '/api/v1/health'),
    ]
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(secret)
    expect(JSON.stringify(vault.logs)).not.toContain(secret)
    const row = await vault.deps.database.db
      .selectFrom('printers')
      .select('credentials')
      .where('id', '=', printer.id)
      .executeTakeFirstOrThrow()
    expect(row.credentials).toMatch(/^v1\./)
    expect(row.credentials).not.toContain(secret)
    expect(fake.requests.every((r) => r.headers['x-api-key'] === secret)).toBe(true)
  })

  it('only admins register printers, and addresses cannot carry credentials', async () => {
    const denied = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token: userToken,
      json: { name: 'x', provider: 'virtual', address: 'virtual://x' },
    })
    expectProblem(denied, 403, 'insufficient_role')
    const bad = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'y', provider: 'octoprint', address: 'http://user:pw@host' },
    })
    expectProblem(bad, 422, 'validation_failed')
    const unknown = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'z', provider: 'repetier', address: 'http://host' },
    })
    expectProblem(unknown, 422, 'validation_failed')
  })
})

describe('two apps in one process', () => {
  it('keep their own printer status caches, even for the same printer of a shared database', async () => {
    const env = { ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '600000' }
    const first = await startTestVault(env)
    const second = await startTestVault(env, { shareWith: first })
    try {
      const fake = await fakeMoonraker(secret)
      fakes.push(fake)
      const firstToken = (await signIn(first.baseUrl, admin)).access_token
      const created = await call(first.baseUrl, 'POST', '/api/v1/printers', {
        token: firstToken,
        json: { name: 'shared', provider: 'moonraker', address: fake.url, credentials: { api_key: secret } },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body.status.state).toBe('idle')

      fake.state.printing = 'elsewhere.gcode'
      const path = `/api/v1/printers/${created.body.id}`
      // The second app has never polled this printer, so it sees it printing; the first serves its cached idle.
      const seenBySecond = await call(second.baseUrl, 'GET', path, { token: firstToken })
      expect(seenBySecond.body.status).toMatchObject({ state: 'printing', stale: false })
      const seenByFirst = await call(first.baseUrl, 'GET', path, { token: firstToken })
      expect(seenByFirst.body.status).toMatchObject({ state: 'idle', stale: false })
    } finally {
      await second.close()
      await first.close()
    }
  })
})
