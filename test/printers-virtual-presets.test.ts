import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mapMoonraker } from '../src/adapters/printers/moonraker/moonraker-states.js'
import { mapOctoPrintConnection, mapOctoPrintFlags } from '../src/adapters/printers/octoprint/octoprint-states.js'
import { mapPrusaLink, prusalinkStates } from '../src/adapters/printers/prusalink/prusalink-states.js'
import { admin, adminEnv, call, expectProblem, signIn } from './support/accounts.js'
import { shiftedClock } from './support/shifted-clock.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { sliceShape, upload } from './support/uploads.js'

// The virtual printer's jobs run on the vault's clock: moved on through a job without waiting.
const clock = shiftedClock()
let vault: TestVault
let token: string
let gcodeId: string

beforeAll(async () => {
  vault = await startTestVault(
    { ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '0', VAULT_PRINTER_CONFIRM_MS: '2000' },
    { clock },
  )
  token = (await signIn(vault.baseUrl, admin)).access_token
  gcodeId = (await upload(vault.baseUrl, token, 'pyramid.gcode', sliceShape('pyramid').gcode)).body.file.id
})
afterAll(async () => vault?.close())

const raw = (path: string, body: string) =>
  fetch(`${vault.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
    body,
  }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    body: await res.json(),
  }))

describe('the virtual printer, end to end through the API', () => {
  it('registers, shows idle, takes real sliced G-code, heats, prints with progress and finishes', async () => {
    const created = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'Bench', provider: 'virtual', address: 'virtual://bench?heat_seconds=0.3&print_seconds=60' },
    })
    expect(created.status).toBe(201)
    expect(created.body.status).toMatchObject({ state: 'idle', ready: true, job: null })
    const sent = await call(vault.baseUrl, 'POST', `/api/v1/printers/${created.body.id}/send`, {
      token,
      json: { file_id: gcodeId, start: true },
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(201)
    expect(sent.body).toMatchObject({
      outcome: 'confirmed',
      uploaded: true,
      started: true,
      confirmed: true,
      remote_name: 'pyramid.gcode',
    })
    expect(sent.body.steps.map((s: { step: string }) => s.step)).toEqual([
      'check',
      'upload',
      'recheck',
      'start',
      'confirm',
    ])

    clock.advance(30_000)
    const printing = (await call(vault.baseUrl, 'GET', `/api/v1/printers/${created.body.id}`, { token })).body.status
    expect(printing.state).toBe('printing')
    expect(printing.job.progress).toBeGreaterThan(0)
    expect(printing.job.progress).toBeLessThan(1)
    expect(printing.temperatures.nozzle.target).toBe(215)

    clock.advance(31_000)
    const done = (await call(vault.baseUrl, 'GET', '/api/v1/printers', { token })).body.items.find(
      (p: { id: string }) => p.id === created.body.id,
    ).status
    expect(done).toMatchObject({ state: 'idle', ready: true, job: { progress: 1, file_name: 'pyramid.gcode' } })

    const all = await call(vault.baseUrl, 'GET', '/api/v1/dispatches', { token })
    expect(all.body.items[0]).toMatchObject({ printer_name: 'Bench', file_name: 'pyramid.gcode', outcome: 'confirmed' })
  })

  it('health counts reachable printers and names the failing ones', async () => {
    await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'Gone', provider: 'octoprint', address: 'http://127.0.0.1:9' },
    })
    const health = (await call(vault.baseUrl, 'GET', '/api/v1/health')).body.components['printer-provider']
    expect(health).toMatchObject({ status: 'warn', required: false, details: { printers: 2, online: 1 } })
    expect(health.reason).toContain('1 of 2 printers online; offline: Gone (')
    expect(health.reason).not.toContain('127.0.0.1')
  })
})

describe('status mapping tables', () => {
  it('maps Moonraker, OctoPrint and PrusaLink state words', () => {
    expect(mapMoonraker('ready', 'printing').state).toBe('printing')
    expect(mapMoonraker('ready', 'standby').state).toBe('idle')
    expect(mapMoonraker('ready', 'complete')).toMatchObject({ state: 'idle', reason: expect.stringContaining('bed') })
    expect(mapMoonraker('shutdown', 'printing').state).toBe('error')
    expect(mapMoonraker('startup', 'standby').state).toBe('busy')
    expect(mapMoonraker('ready', 'weird').state).toBe('unknown')
    // A console command, homing or heating: print_stats stays standby, idle_timeout says Printing.
    expect(mapMoonraker('ready', 'standby', { idleTimeout: 'Printing' })).toMatchObject({ state: 'busy' })
    expect(mapMoonraker('ready', 'complete', { idleTimeout: 'Printing' }).state).toBe('busy')
    expect(mapMoonraker('ready', 'printing', { idleTimeout: 'Printing' }).state).toBe('printing')
    expect(mapMoonraker('ready', 'standby', { idleTimeout: 'Ready' }).state).toBe('idle')
    // Klipper's messages: the first line says what happened; a failed job says why.
    const shutdown =
      '\nMCU \'mcu\' shutdown: Timer too close\nThis often indicates a host error.\nOnce the underlying issue is corrected, use the\n"FIRMWARE_RESTART" command to reset the firmware.\n'
    expect(mapMoonraker('shutdown', 'printing', { stateMessage: shutdown }).reason).toBe(
      "Klipper is shut down: MCU 'mcu' shutdown: Timer too close",
    )
    expect(mapMoonraker('ready', 'error', { jobMessage: 'Move out of range: 250.000 0.000 0.300 [0.000]' })).toEqual({
      state: 'idle',
      reason:
        'the last job ended with an error (Move out of range: 250.000 0.000 0.300 [0.000]); make sure the bed is clear',
    })
    expect(mapMoonraker('ready', 'error', { jobMessage: '' }).reason).toBe(
      'the last job ended with an error; make sure the bed is clear',
    )
    expect(mapOctoPrintFlags({ operational: true, ready: true }).state).toBe('idle')
    expect(mapOctoPrintFlags({ operational: true, printing: true }).state).toBe('printing')
    expect(mapOctoPrintFlags({ operational: true, paused: true }).state).toBe('paused')
    expect(mapOctoPrintFlags({ operational: true, printing: true, cancelling: true }).state).toBe('busy')
    expect(mapOctoPrintFlags({ closedOrError: true }).state).toBe('offline')
    expect(mapOctoPrintFlags({ closedOrError: true, error: true }).state).toBe('error')
    expect(mapOctoPrintFlags({}).state).toBe('unknown')
    expect(mapOctoPrintFlags({ operational: true, printing: true }, 'Sending file to SD').state).toBe('busy')
    // OctoPrint before 1.8 put the error in the state text; the operational words are left to the flags.
    expect(mapOctoPrintConnection('Offline (Error: Printer halted. kill() called!)')).toEqual({
      state: 'offline',
      reason: 'OctoPrint closed the connection to the printer after an error: Printer halted. kill() called!',
    })
    expect(mapOctoPrintConnection('Error: Thermal Runaway')).toEqual({
      state: 'error',
      reason: 'OctoPrint reports an error: Thermal Runaway',
    })
    expect(mapOctoPrintConnection('Detecting baudrate')?.state).toBe('offline')
    expect(mapOctoPrintConnection('Printing from SD')).toBeNull()
    // Words that name no state, inherited keys included, are unknown.
    expect(mapPrusaLink('constructor', {}).state).toBe('unknown')
    expect(mapMoonraker('toString', 'standby').state).toBe('unknown')
    expect(Object.fromEntries(Object.entries(prusalinkStates).map(([word, mapped]) => [word, mapped.state]))).toEqual({
      IDLE: 'idle',
      READY: 'idle',
      FINISHED: 'idle',
      STOPPED: 'idle',
      BUSY: 'busy',
      PRINTING: 'printing',
      PAUSED: 'paused',
      ATTENTION: 'error',
      ERROR: 'error',
    })
  })
})

describe('presets', () => {
  it('imports a real PrusaSlicer vendor bundle with inherits resolved and abstract sections skipped', async () => {
    const bundle = readFileSync('/usr/share/PrusaSlicer/profiles/Anycubic.ini', 'utf8')
    const filaments = await raw('/api/v1/filament-profiles/import', bundle)
    expect(filaments.status, JSON.stringify(filaments.body)).toBe(200)
    expect(filaments.body.created).toBeGreaterThan(10)
    expect(filaments.body.items.some((i: { name: string }) => i.name.startsWith('*'))).toBe(false)
    const printers = await raw('/api/v1/printer-profiles/import', bundle)
    expect(printers.status).toBe(200)
    const list = (await call(vault.baseUrl, 'GET', '/api/v1/printer-profiles', { token })).body.items
    expect(list.length).toBe(printers.body.created)
    expect(list.every((p: { bed_x_mm: number | null }) => p.bed_x_mm === null || p.bed_x_mm > 50)).toBe(true)
    const pla = (await call(vault.baseUrl, 'GET', '/api/v1/filament-profiles?q=PLA', { token })).body.items.find(
      (p: { material: string }) => p.material === 'PLA',
    )
    expect(pla).toMatchObject({ material: 'PLA', source: 'prusaslicer' })
    expect(pla.density_g_cm3).toBeCloseTo(1.24)
    expect(pla.nozzle_temperature_c).toBeGreaterThan(150)
    const again = await raw('/api/v1/filament-profiles/import', bundle)
    expect(again.body).toMatchObject({ created: 0, updated: filaments.body.created })
  })

  it('imports a real Cura material file', async () => {
    const xml = readFileSync('/usr/share/cura/resources/materials/generic_pla_175.xml.fdm_material', 'utf8')
    const reply = await raw('/api/v1/filament-profiles/import', xml)
    expect(reply.status).toBe(200)
    const profile = (await call(vault.baseUrl, 'GET', `/api/v1/filament-profiles/${reply.body.items[0].id}`, { token }))
      .body
    expect(profile).toMatchObject({
      name: 'Generic PLA 1.75mm',
      material: 'PLA',
      vendor: 'Generic',
      color: '#ffc924',
      diameter_mm: 1.75,
      density_g_cm3: 1.24,
      nozzle_temperature_c: 200,
      bed_temperature_c: 60,
      source: 'cura',
    })
    expectProblem(await raw('/api/v1/printer-profiles/import', xml), 422, 'unsupported_preset_file')
    expectProblem(await raw('/api/v1/filament-profiles/import', 'hello'), 422, 'unsupported_preset_file')
  })

  it('links a printer to a printer profile that exists, refuses any other id with 422, and unlinks with null', async () => {
    const profile = await call(vault.baseUrl, 'POST', '/api/v1/printer-profiles', {
      token,
      json: { name: 'Linked MK4', bed_x_mm: 250, bed_y_mm: 210 },
    })
    const printer = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'Profiled', provider: 'virtual', address: 'virtual://profiled' },
    })
    const patch = (printer_profile_id: string | null) =>
      call(vault.baseUrl, 'PATCH', `/api/v1/printers/${printer.body.id}`, { token, json: { printer_profile_id } })
    expect((await patch(profile.body.id)).body.printer_profile_id).toBe(profile.body.id)
    for (const unknown of ['', ' ', 'no-such-profile']) {
      const refused = expectProblem(await patch(unknown), 422, 'validation_failed')
      expect(refused.errors).toContainEqual({
        path: 'body.printer_profile_id',
        message: 'no printer profile has this id',
      })
    }
    expectProblem(
      await call(vault.baseUrl, 'POST', '/api/v1/printers', {
        token,
        json: { name: 'Unprofiled', provider: 'virtual', address: 'virtual://u', printer_profile_id: '' },
      }),
      422,
      'validation_failed',
    )
    expect((await patch(null)).body.printer_profile_id).toBeNull()
  })

  it('creates, edits and deletes profiles, and links G-code to presets by name', async () => {
    // Real sliced G-code, with the preset names PrusaSlicer writes when sliced from named presets.
    const filamentName = 'Prusament PLA'
    const printerName = 'Original Prusa MK4 0.4 nozzle'
    const named = `${sliceShape('box').gcode.toString('utf8')}\n; filament_settings_id = "${filamentName}"\n; printer_settings_id = ${printerName}\n`
    const linkedId = (await upload(vault.baseUrl, token, 'named.gcode', named)).body.file.id
    const filament = await call(vault.baseUrl, 'POST', '/api/v1/filament-profiles', {
      token,
      json: { name: filamentName, material: 'PLA', cost_per_kg: 25 },
    })
    expect(filament.status, JSON.stringify(filament.body)).toBe(201)
    const printer = await call(vault.baseUrl, 'POST', '/api/v1/printer-profiles', {
      token,
      json: { name: printerName, bed_x_mm: 250, bed_y_mm: 210, firmware_provider: 'prusalink' },
    })
    expect(printer.status).toBe(201)
    expectProblem(
      await call(vault.baseUrl, 'POST', '/api/v1/printer-profiles', { token, json: { name: printerName } }),
      409,
      'name_taken',
    )
    expectProblem(
      await call(vault.baseUrl, 'POST', '/api/v1/filament-profiles', { token, json: { name: 'x', diameter_mm: -1 } }),
      422,
      'validation_failed',
    )
    const linked = await call(vault.baseUrl, 'GET', `/api/v1/files/${linkedId}/presets`, { token })
    expect(linked.body.filament_profiles.map((p: { id: string }) => p.id)).toEqual([filament.body.id])
    expect(linked.body.printer_profiles.map((p: { id: string }) => p.id)).toEqual([printer.body.id])
    const edited = await call(vault.baseUrl, 'PATCH', `/api/v1/filament-profiles/${filament.body.id}`, {
      token,
      json: { color: 'Galaxy Black' },
    })
    expect(edited.body).toMatchObject({ color: 'Galaxy Black', cost_per_kg: 25 })
    expect(
      (await call(vault.baseUrl, 'DELETE', `/api/v1/filament-profiles/${filament.body.id}`, { token })).status,
    ).toBe(204)
    expectProblem(
      await call(vault.baseUrl, 'GET', `/api/v1/filament-profiles/${filament.body.id}`, { token }),
      404,
      'not_found',
    )
  })
})
