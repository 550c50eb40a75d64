import { describe, expect, it } from 'vitest'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { FilamentProfileSchema } from './presets.routes.js'

const suite = setUpInProcessSuite()

const importFile = (kind: 'filament' | 'printer', text: string) =>
  suite.vault.app.request(`/api/v1/${kind}-profiles/import`, {
    method: 'POST',
    headers: { Authorization: suite.authorization, 'Content-Type': 'text/plain' },
    body: text,
  })

const listed = async (kind: 'filament' | 'printer') =>
  (
    (await (
      await suite.vault.app.request(`/api/v1/${kind}-profiles`, { headers: { Authorization: suite.authorization } })
    ).json()) as {
      items: Record<string, unknown>[]
    }
  ).items

describe('importing slicer presets keeps the limits of creating one by hand', () => {
  it('imports the profiles within range and lists the others as skipped, with the reasons', async () => {
    const longName = `Long ${'x'.repeat(295)}`
    const bundle = [
      '[filament:Fine PLA]',
      'filament_type = PLA',
      'temperature = 215',
      'bed_temperature = 60',
      `[filament:${longName}]`,
      'filament_type = PETG',
      '[filament:Lava PLA]',
      'temperature = -40',
      'bed_temperature = 5000',
      'filament_cost = 1000000000',
    ].join('\n')
    const answer = await importFile('filament', bundle)
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { created: number; items: { name: string }[]; skipped: unknown[] }
    expect(body.created).toBe(1)
    expect(body.items.map((item) => item.name)).toEqual(['Fine PLA'])
    expect(body.skipped).toEqual([
      { name: longName, reasons: ['name is 300 characters long (at most 200)'] },
      {
        name: 'Lava PLA',
        reasons: [
          'nozzle_temperature_c is -40 (above 0, at most 100000)',
          'bed_temperature_c is 5000 (at least 0, at most 200)',
          'cost_per_kg is 1000000000 (at least 0, at most 100000)',
        ],
      },
    ])
    // Every stored profile fits the schema its listing answers with.
    const items = await listed('filament')
    expect(items.map((item) => item.name)).toEqual(['Fine PLA'])
    for (const item of items) expect(FilamentProfileSchema.safeParse(item).success).toBe(true)
  })

  it('refuses a file with no profile in range, storing nothing', async () => {
    const bundle = ['[printer:Huge]', 'bed_shape = 0x0,900000x0,900000x900000,0x900000', 'max_print_height = -5'].join(
      '\n',
    )
    const answer = await importFile('printer', bundle)
    expect(answer.status).toBe(422)
    expect(answer.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await answer.json()) as { code: string; detail: string }
    expect(problem.code).toBe('preset_out_of_range')
    expect(problem.detail).toContain('"Huge": bed_x_mm is 900000 (above 0, at most 100000)')
    expect(await listed('printer')).toEqual([])
  })

  it('checks a Cura material file the same way', async () => {
    const material = `<?xml version="1.0"?><fdmmaterial xmlns="http://www.ultimaker.com/material"><metadata>
      <name><brand>Hot</brand><material>PLA</material><color>Red</color></name></metadata>
      <properties><diameter>1.75</diameter></properties>
      <settings><setting key="heated bed temperature">5000</setting></settings></fdmmaterial>`
    const answer = await importFile('filament', material)
    expect(answer.status).toBe(422)
    expect(((await answer.json()) as { detail: string }).detail).toContain('bed_temperature_c is 5000')
  })
})
