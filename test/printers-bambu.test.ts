import { unzipSync } from 'fflate'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type BambuBehaviour, type FakeBambu, fakeBambu } from '../src/adapters/printers/bambu/bambu.fake.js'
import { createBambuPrinters } from '../src/adapters/printers/bambu/bambu-provider.js'
import { byteSourceFromBytes } from '../src/core/formats/byte-source.js'
import { readThreeMf } from '../src/core/formats/three-mf.js'
import { PrinterError } from '../src/core/printers/provider.js'
import { admin, adminEnv, call, expectProblem, newAccount, signIn } from './support/accounts.js'
import { slicedExport, slicedPlate } from './support/sliced-3mf.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { sliceShape, upload } from './support/uploads.js'

let vault: TestVault
let token: string
let userToken: string
let gcode: Buffer
let gcodeId: string
const fakes: FakeBambu[] = []

beforeAll(async () => {
  vault = await startTestVault({
    ...adminEnv,
    // Long enough for a first MQTT connection (TLS, CONNECT, SUBSCRIBE, pushall) on a busy machine.
    VAULT_PRINTER_TIMEOUT_MS: '1500',
    VAULT_PRINTER_STATUS_TTL_MS: '0',
    VAULT_PRINTER_CONFIRM_MS: '3000',
  })
  token = (await signIn(vault.baseUrl, admin)).access_token
  userToken = (await newAccount(vault.baseUrl, token)).token
  gcode = sliceShape('box').gcode
  gcodeId = (await upload(vault.baseUrl, token, 'box.gcode', gcode)).body.file.id
})
afterAll(async () => vault?.close())
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
})

async function started(options?: Parameters<typeof fakeBambu>[0], behaviour: BambuBehaviour = {}) {
  const fake = await fakeBambu(options)
  fakes.push(fake)
  Object.assign(fake.behaviour, behaviour)
  return fake
}

async function register(fake: FakeBambu, credentials: Record<string, string> = {}) {
  const reply = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
    token,
    json: {
      name: `bambu-${crypto.randomUUID().slice(0, 6)}`,
      provider: 'bambu',
      address: fake.address,
      credentials: { serial: fake.serial, access_code: fake.accessCode, ...credentials },
    },
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body
}

const send = (id: string, start = true) =>
  call(vault.baseUrl, 'POST', `/api/v1/printers/${id}/send`, { token: userToken, json: { file_id: gcodeId, start } })
const status = async (id: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}`, { token: userToken })).body.status
const diagnose = async (id: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}/diagnostics`, { token: userToken })).body
interface Check {
  name: string
  result: string
  detail: string
}
const check = (diagnostics: { checks: Check[] }, name: string): Check | undefined =>
  diagnostics.checks.find((candidate) => candidate.name === name)

/** The status once it satisfies `seen` (reports arrive over MQTT a moment after they are published). */
async function statusWhen(
  id: string,
  seen: (status: { state: string; reason: string | null; raw: Record<string, unknown> }) => boolean,
) {
  const deadline = Date.now() + 6000
  let current = await status(id)
  while (!seen(current) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    current = await status(id)
  }
  return current
}

describe('a Bambu Lab printer in LAN mode', () => {
  it('is registered, watched, diagnosed and sent to: the G-code goes as a .gcode.3mf over FTPS and is started with project_file', async () => {
    const fake = await started()
    const printer = await register(fake)
    expect(printer.has_credentials).toBe(true)
    expect(printer.status).toMatchObject({
      state: 'idle',
      ready: true,
      temperatures: { nozzle: { actual: 24.5, target: 0 }, bed: { actual: 23.9, target: 0 } },
      job: null,
    })

    const diagnostics = await diagnose(printer.id)
    expect(diagnostics).toMatchObject({
      reachable: true,
      authenticated: true,
      firmware_link: true,
      identity: { software: 'Bambu Lab LAN', version: '01.08.02.00', hostname: 'Bambu Lab P1S' },
      capabilities: { upload: true, start: true, live_push: 'mqtt' },
    })
    for (const name of ['reachable', 'authentication', 'tls', 'firmware', 'developer mode', 'ftps', 'ready'])
      expect(check(diagnostics, name), name).toMatchObject({ result: 'pass' })
    expect(check(diagnostics, 'tls')?.detail).toContain(`certificate for ${fake.serial}`)

    const reply = await send(printer.id)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({
      outcome: 'confirmed',
      uploaded: true,
      started: true,
      confirmed: true,
      remote_name: 'box.gcode.3mf',
    })
    const wrapped = fake.file('box.gcode.3mf')!
    // The vault reads its own wrapping as a sliced export of plate 1.
    const asRead = await readThreeMf(byteSourceFromBytes(new Uint8Array(wrapped)))
    expect(asRead.plates).toMatchObject([{ index: 1, gcode: 'Metadata/plate_1.gcode' }])
    const stored = unzipSync(wrapped)
    expect(Buffer.from(stored['Metadata/plate_1.gcode']!).equals(gcode)).toBe(true)
    expect(new TextDecoder().decode(stored['Metadata/plate_1.gcode.md5'])).toMatch(/^[0-9A-F]{32}$/)
    expect(new TextDecoder().decode(stored['Metadata/slice_info.config'])).toContain('key="index" value="1"')
    const start = fake.requests.map((request) => request.print as Record<string, unknown>).find(Boolean)
    expect(start).toMatchObject({
      command: 'project_file',
      param: 'Metadata/plate_1.gcode',
      url: 'ftp://box.gcode.3mf',
      subtask_name: 'box.gcode.3mf',
      use_ams: false,
    })

    const printing = await statusWhen(printer.id, (s) => s.state === 'printing')
    expect(printing).toMatchObject({
      state: 'printing',
      ready: false,
      job: { file_name: 'box.gcode.3mf', progress: 0.03, time_left_s: 42 * 60 },
      raw: { gcode_state: 'RUNNING', layer_num: 1, total_layer_num: 120 },
      temperatures: { nozzle: { actual: 219.5, target: 220 } },
    })
    expectProblem(await send(printer.id), 409, 'printer_not_ready')
  })

  it('prints the sliced plate of a stored .gcode.3mf as it is, which only a Bambu printer is sent', async () => {
    const bytes = slicedExport([slicedPlate(2, 3129, 9.84, 'M3x10 screw')], [2])
    const packageId = (await upload(vault.baseUrl, token, 'Screws & nuts.gcode.3mf', bytes)).body.file.id
    const sendPackage = (id: string) =>
      call(vault.baseUrl, 'POST', `/api/v1/printers/${id}/send`, {
        token: userToken,
        json: { file_id: packageId, start: true },
      })
    const fake = await started()
    const printer = await register(fake)
    const reply = await sendPackage(printer.id)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toMatchObject({ outcome: 'confirmed', remote_name: 'Screws_nuts.gcode.3mf' })
    expect(fake.file('Screws_nuts.gcode.3mf')?.equals(Buffer.from(bytes))).toBe(true)
    expect(fake.requests.find((request) => request.print)?.print).toMatchObject({
      command: 'project_file',
      param: 'Metadata/plate_2.gcode',
      url: 'ftp://Screws_nuts.gcode.3mf',
    })

    const bench = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: `bench-${crypto.randomUUID().slice(0, 6)}`, provider: 'virtual', address: 'virtual://bench' },
    })
    const refused = expectProblem(await sendPackage(bench.body.id), 422, 'not_gcode')
    expect(refused.detail).toContain('only Bambu Lab printers print as it is')
    const project = await upload(vault.baseUrl, token, 'unsliced.3mf', slicedExport([], []))
    const unsliced = await call(vault.baseUrl, 'POST', `/api/v1/printers/${printer.id}/send`, {
      token: userToken,
      json: { file_id: project.body.file.id, start: true },
    })
    expectProblem(unsliced, 422, 'not_gcode')
  })

  it('maps every gcode_state, merging the partial reports a P1 sends into one state', async () => {
    const fake = await started()
    const printer = await register(fake)
    const expected: Array<[string, string, boolean, string | null]> = [
      ['PREPARE', 'busy', false, 'the printer is preparing a job'],
      ['RUNNING', 'printing', false, null],
      ['PAUSE', 'paused', false, null],
      ['FINISH', 'idle', true, 'the last job finished; make sure the bed is clear'],
      ['FAILED', 'idle', true, 'the last job failed or was stopped; make sure the bed is clear'],
      ['SLICING', 'busy', false, 'the printer is slicing a job'],
      ['IDLE', 'idle', true, null],
      ['CALIBRATING_LIDAR', 'unknown', false, 'unrecognised provider state "CALIBRATING_LIDAR"'],
    ]
    fake.report({ gcode_file: 'other.gcode.3mf', subtask_name: 'other.gcode.3mf', mc_percent: 40 })
    for (const [word, state, ready, reason] of expected) {
      fake.report({ gcode_state: word })
      const seen = await statusWhen(printer.id, (s) => s.raw.gcode_state === word)
      expect(seen, word).toMatchObject({ state, ready, reason })
      // Only gcode_state changed: the temperatures from the first full report stay.
      expect(seen.temperatures.bed, word).toEqual({ actual: 23.9, target: 0 })
    }
    fake.report({ gcode_state: 'RUNNING' })
    const running = await statusWhen(printer.id, (s) => s.state === 'printing')
    expect(running.job).toMatchObject({ file_name: 'other.gcode.3mf', progress: 0.4 })
  })

  it('holds a printer with a serious HMS error, names lesser ones, and says why the last job failed', async () => {
    const fake = await started()
    const printer = await register(fake)
    fake.report({ hms: [{ attr: 0x0300_0100, code: 0x0002_0001 + 0x4000 }] })
    const held = await statusWhen(printer.id, (s) => s.state === 'error')
    expect(held).toMatchObject({
      state: 'error',
      ready: false,
      reason: 'the printer reports HMS_0300_0100_0002_4001 (serious); see its screen',
    })
    expectProblem(await send(printer.id), 409, 'printer_not_ready')
    expect(fake.logins.filter((login) => login.via === 'ftp')).toHaveLength(0)

    fake.report({ hms: [{ attr: 0x0700_0200, code: 0x0003_8001 }] })
    const common = await statusWhen(printer.id, (s) => s.state === 'idle')
    expect(common.reason).toBe('the printer reports HMS_0700_0200_0003_8001 (common)')

    fake.report({ hms: [{ attr: 0x0300_0100, code: 0x0001_4001 }], gcode_state: 'PAUSE', gcode_file: 'x.gcode.3mf' })
    const paused = await statusWhen(printer.id, (s) => s.state === 'paused')
    expect(paused.reason).toBe('the printer reports HMS_0300_0100_0001_4001 (fatal)')

    fake.report({ hms: [], gcode_state: 'FAILED', print_error: 0x0500_c010 })
    const failed = await statusWhen(printer.id, (s) => s.raw.gcode_state === 'FAILED')
    expect(failed).toMatchObject({
      state: 'idle',
      reason: 'the last job failed or was stopped (error 0500_C010); make sure the bed is clear',
      job: { file_name: 'x.gcode.3mf' },
    })
  })

  it("keeps the failed job's error in the reason while a fatal HMS error holds the printer", async () => {
    const fake = await started()
    const printer = await register(fake)
    fake.report({
      gcode_state: 'FAILED',
      print_error: 0x0300_8010,
      hms: [{ attr: 0x0300_0100, code: 0x0001_8010 }],
    })
    const held = await statusWhen(printer.id, (s) => s.state === 'error')
    expect(held.reason).toBe(
      'the last job failed or was stopped (error 0300_8010); make sure the bed is clear; the printer reports HMS_0300_0100_0001_8010 (fatal); see its screen',
    )
  })

  it('refuses a send while the printer prints, without uploading anything', async () => {
    const fake = await started()
    fake.state.gcode_state = 'RUNNING'
    fake.state.gcode_file = 'someone-elses.gcode.3mf'
    const printer = await register(fake)
    expect(printer.status).toMatchObject({ state: 'printing', job: { file_name: 'someone-elses.gcode.3mf' } })
    const refused = expectProblem(await send(printer.id), 409, 'printer_not_ready')
    expect(refused.errors).toContainEqual({ path: 'printer.state', message: 'printing' })
    expect(fake.file('box.gcode.3mf')).toBeNull()
    expect(fake.requests.some((request) => 'print' in request)).toBe(false)
  })

  it('catches a start the printer acknowledges but never runs', async () => {
    const fake = await started({}, { silentStart: true })
    const printer = await register(fake)
    const reply = await send(printer.id)
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'not_confirmed', uploaded: true, started: true, confirmed: false })
    expect(reply.body.detail).toContain('the printer is idle')
  })

  it("records the printer's own reason when it refuses the start", async () => {
    const fake = await started({}, { refuseStart: 'Failed to get AMS mapping table' })
    const printer = await register(fake)
    const reply = await send(printer.id)
    expect(reply.status).toBe(502)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true, started: false })
    expect(reply.body.detail).toBe(
      'Stored as box.gcode.3mf, but the printer refused to start it: the printer refused the start: Failed to get AMS mapping table',
    )
  })

  it('confirms a start older firmware never answers by the print it then sees', async () => {
    const fake = await started({}, { unansweredStart: true, prepareMs: 300 })
    const printer = await register(fake)
    const reply = await send(printer.id)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.steps.find((step: { step: string }) => step.step === 'start')).toMatchObject({ ok: false })
    expect(reply.body).toMatchObject({ outcome: 'confirmed', started: true })
  })

  it('records a send the printer still prepares as preparing, then settles it once it prints or fails', async () => {
    const dispatchesOf = async (id: string) =>
      (await call(vault.baseUrl, 'GET', `/api/v1/printers/${id}/dispatches`, { token: userToken })).body.items

    const slow = await started({}, { prepareMs: 3600 })
    const printer = await register(slow)
    const reply = await send(printer.id)
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    expect(reply.body).toMatchObject({ outcome: 'preparing', started: true, confirmed: false })
    await statusWhen(printer.id, (seen) => seen.state === 'printing')
    expect(await dispatchesOf(printer.id)).toMatchObject([{ id: reply.body.id, outcome: 'confirmed', confirmed: true }])

    const failing = await started({}, { prepareMs: 3600, failWhilePreparing: 0x0500_4003 })
    const other = await register(failing)
    expect((await send(other.id)).body.outcome).toBe('preparing')
    await statusWhen(other.id, (seen) => seen.raw.gcode_state === 'FAILED')
    const [settled] = await dispatchesOf(other.id)
    expect(settled).toMatchObject({ outcome: 'not_confirmed', started: true, confirmed: false })
    expect(settled.detail).toContain('did not print it')
    expect(settled.detail).toContain('error 0500_4003')
    expect(settled.steps.at(-1)).toMatchObject({ step: 'confirm', ok: false })
  })

  it('says to turn on Developer Mode when the printer drops the start it could not verify', async () => {
    const fake = await started({}, { developerModeOff: true })
    const printer = await register(fake)
    expect(check(await diagnose(printer.id), 'developer mode')).toMatchObject({ result: 'warn' })
    const reply = await send(printer.id)
    expect(reply.body).toMatchObject({ outcome: 'start_refused', uploaded: true })
    expect(reply.body.detail).toContain('turn on LAN Only and Developer Mode')
  })

  it('reads the Developer Mode bit inside print as firmware that sends it there does', async () => {
    const fake = await started({}, { developerModeOff: true, funInPrint: true })
    const printer = await register(fake)
    expect(check(await diagnose(printer.id), 'developer mode')).toMatchObject({ result: 'warn' })
  })

  it('shows a wrong access code as an authentication problem in the status and in diagnostics', async () => {
    const fake = await started()
    const printer = await register(fake, { access_code: '87654321' })
    expect(printer.status).toMatchObject({ state: 'offline', ready: false })
    expect(printer.status.reason).toMatch(/refused the access code \(MQTT: not authorized\)/)
    const diagnostics = await diagnose(printer.id)
    expect(diagnostics).toMatchObject({ reachable: true, authenticated: false })
    expect(check(diagnostics, 'authentication')).toMatchObject({ result: 'fail' })
    expectProblem(await send(printer.id), 409, 'printer_not_ready')
    // A refused code is not tried again and again against the printer.
    const tries = fake.logins.length
    await status(printer.id)
    expect(fake.logins.length).toBe(tries)
  })

  it('is offline with the reason when the serial is wrong, the answer slow, or the printer gone, and recovers', async () => {
    const wrongSerial = await started()
    const unknown = await register(wrongSerial, { serial: '01S00C000000000' })
    expect(unknown.status.state).toBe('offline')
    expect(unknown.status.reason).toMatch(/check its serial number/)

    const slow = await started({}, { slowPushallMs: 2000 })
    const late = await register(slow)
    expect(late.status).toMatchObject({ state: 'offline' })
    expect((await statusWhen(late.id, (s) => s.state === 'idle')).ready).toBe(true)

    const fake = await started()
    const printer = await register(fake)
    fake.dropConnections()
    const dropped = await statusWhen(printer.id, (s) => s.state === 'offline')
    expect(dropped).toMatchObject({ state: 'offline', reason: 'no answer within 1500 ms' })
    // mqtt.js reconnects after 3 s and asks for a full report again.
    const back = await statusWhen(printer.id, (s) => s.state === 'idle')
    expect(back.state, 'reconnected').toBe('idle')

    await fake.close()
    fakes.splice(fakes.indexOf(fake), 1)
    const gone = await statusWhen(printer.id, (s) => s.state === 'offline')
    expect(gone.state).toBe('offline')
  }, 30_000)

  it('marks the status stale once a connected printer misses a few reports, though the connection stays open', async () => {
    const fake = await started({}, { reportEveryMs: 100 })
    const printer = await register(fake)
    expect(await statusWhen(printer.id, (s) => s.state === 'idle')).toMatchObject({ stale: false, ready: true })
    fake.behaviour.silent = true
    // A slow poll also serves a stale status; the silent session's names its silence.
    const silent = await statusWhen(printer.id, (s) => /stopped sending reports/.test(String(s.reason)))
    expect(silent).toMatchObject({ state: 'idle', stale: true, ready: false })
    expectProblem(await send(printer.id), 409, 'printer_not_ready')
    fake.behaviour.silent = false
    expect(await statusWhen(printer.id, (s) => (s as { stale?: boolean }).stale === false)).toMatchObject({
      ready: true,
    })
  })

  it('checks the storage port even when the MQTT port does not answer', async () => {
    const fake = await started()
    const printer = await register({ ...fake, address: fake.address.replace(/mqtt_port=\d+/, 'mqtt_port=9') })
    expect(printer.status.reason).toBe('the printer could not be reached on MQTT port 9 (ECONNREFUSED)')
    const diagnostics = await diagnose(printer.id)
    expect(diagnostics).toMatchObject({ reachable: false })
    expect(check(diagnostics, 'reachable')).toMatchObject({ result: 'fail' })
    expect(check(diagnostics, 'ftps')).toMatchObject({ result: 'pass' })
  })

  it('warns when the certificate does not name the serial number', async () => {
    const fake = await started({ certificateName: 'someone-else' })
    const printer = await register(fake)
    const tls = check(await diagnose(printer.id), 'tls')
    expect(tls).toMatchObject({ result: 'warn' })
    expect(tls?.detail).toContain('does not name the serial number')
  })

  it('keeps the access code out of every answer and every log line, and encrypted at rest', async () => {
    const fake = await started({ accessCode: 'a9f3c2e1' })
    const printer = await register(fake)
    await send(printer.id)
    const answers = [
      await call(vault.baseUrl, 'GET', '/api/v1/printers', { token }),
      await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}`, { token }),
      await call(vault.baseUrl, 'GET', `/api/v1/printers/${printer.id}/diagnostics`, { token }),
      await call(vault.baseUrl, 'GET', '/api/v1/dispatches', { token }),
    ]
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain('a9f3c2e1')
    expect(JSON.stringify(vault.logs)).not.toContain('a9f3c2e1')
    const row = await vault.deps.database.db
      .selectFrom('printers')
      .select('credentials')
      .where('id', '=', printer.id)
      .executeTakeFirstOrThrow()
    expect(row.credentials).toMatch(/^v1\./)
    expect(row.credentials).not.toContain('a9f3c2e1')
    expect(fake.logins.every((login) => login.password === 'a9f3c2e1')).toBe(true)
  })

  it('asks for the serial and access code and an address without a scheme', async () => {
    const post = (json: Record<string, unknown>) => call(vault.baseUrl, 'POST', '/api/v1/printers', { token, json })
    const missing = expectProblem(
      await post({
        name: 'b1',
        provider: 'bambu',
        address: '192.168.1.40',
        credentials: { serial: '01S00C123456789' },
      }),
      422,
      'validation_failed',
    )
    expect(missing.errors).toContainEqual({
      path: 'body.credentials.access_code',
      message: 'a Bambu Lab printer needs it',
    })
    const credentials = { serial: '01S00C123456789', access_code: '12345678' }
    const http = expectProblem(
      await post({ name: 'b2', provider: 'bambu', address: 'http://192.168.1.40', credentials }),
      422,
      'validation_failed',
    )
    expect(http.errors[0].path).toBe('body.address')
    expectProblem(
      await post({ name: 'b3', provider: 'bambu', address: 'bambu://host?mqtt_port=99999', credentials }),
      422,
      'validation_failed',
    )
  })
})

describe('the Bambu provider on its own', () => {
  it('reports a refused access code on FTPS (530) as an authentication failure', async () => {
    const fake = await started()
    const printers = createBambuPrinters()
    try {
      const provider = printers.provider({
        id: 'p',
        address: fake.address,
        credentials: { serial: fake.serial, access_code: 'wrong-code' },
        timeoutMs: 1000,
      })
      const stream = new Blob([new Uint8Array(gcode)]).stream()
      const failure = await provider.upload({ name: 'box.gcode', size: gcode.length, stream }).catch((e) => e)
      expect(failure).toBeInstanceOf(PrinterError)
      expect(failure).toMatchObject({ kind: 'auth' })
      expect(failure.message).toMatch(/FTP 530/)
      expect(failure.message).not.toContain('wrong-code')
    } finally {
      await printers.close()
    }
  })
})
