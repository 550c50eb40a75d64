import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CommonBehaviour, FakePrinter } from '../../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker } from '../../src/adapters/printers/moonraker/moonraker.fake.js'
import { fakeOctoPrint } from '../../src/adapters/printers/octoprint/octoprint.fake.js'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { type PrusaModel, profileBundle, slicedGcode } from '../support/prusa-fleet.js'
import { upload } from '../support/uploads.js'
import { openSignedIn, screenshot, setUpBrowserSuite } from '../support/web-ui.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

/**
 * The print farm as its operator uses it: work queued from the web UI for a mixed fleet (Klipper,
 * OctoPrint and a virtual printer, two printer models) whose beds clear by script, nobody at the
 * farm while it prints, then the history looked at: every print the printers made is in it, once,
 * on the printer it fits, and the operator's phone (an ntfy topic) was told of each job's end.
 */
const suite = setUpBrowserSuite({
  ...adminEnv,
  VAULT_QUEUE_INTERVAL_MS: '250',
  VAULT_PRINTER_STATUS_TTL_MS: '0',
  VAULT_PRINTER_WATCH_MS: '250',
})
let token: string
let phone: WebhookReceiver
const fakes: FakePrinter<CommonBehaviour>[] = []
beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
  phone = await startWebhookReceiver()
})
afterAll(async () => {
  await Promise.all(fakes.map((fake) => fake.close()))
  await phone?.close()
})

async function api(method: string, path: string, json?: unknown) {
  const reply = await call(suite.vault.baseUrl, method, path, { token, ...(json !== undefined ? { json } : {}) })
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300)
  return reply.body
}

/** A printer that clears its own bed by script, with its model's profile, PLA loaded, in `groups`. */
async function beltPrinter(json: Record<string, unknown>, profileId: string, clearing: Record<string, unknown>) {
  const printer = await api('POST', '/api/v1/printers', { ...json, printer_profile_id: profileId })
  await api('PATCH', `/api/v1/farm/printers/${printer.id}`, {
    groups: json.name === 'Voron' ? ['left'] : ['right'],
    loaded_filaments: ['PLA'],
    bed_clearing: { by: 'script', timeout_s: 30, ...clearing },
  })
  return printer.id as string
}

/** From a model's page, as the operator does: "Add to queue" on its G-code, copies and where it may print. */
async function queueFromModelPage(page: Page, modelId: string, file: string, copies: number, group?: string) {
  await page.goto(`${suite.vault.baseUrl}/models/${modelId}`)
  await page.getByRole('button', { name: `Add to queue: ${file}` }).click()
  const dialog = page.getByRole('dialog', { name: 'Add to print queue' })
  await dialog.getByRole('textbox', { name: 'Copies' }).fill(String(copies))
  if (group) {
    await dialog.getByRole('radio', { name: 'A group of printers' }).check()
    await dialog.getByRole('textbox', { name: 'Group' }).click()
    await page.getByRole('option', { name: group }).click()
  } else await dialog.getByRole('radio', { name: 'Any compatible printer' }).check()
  await dialog.getByRole('button', { name: 'Add to queue' }).click()
  await dialog.waitFor({ state: 'detached' })
}

describe('an unattended farm', () => {
  it('prints work queued from the web UI on the printers it fits, each copy once, with nobody there, and the history and the phone say so', async () => {
    const { vault, browser } = suite
    const imported = await call(vault.baseUrl, 'POST', '/api/v1/printer-profiles/import', {
      token,
      body: profileBundle(['MK4S', 'MINI']),
      headers: { 'Content-Type': 'text/plain' },
    })
    expect(imported.status, JSON.stringify(imported.body)).toBe(200)
    const profileOf = (model: PrusaModel) =>
      (imported.body.items as { id: string; name: string }[]).find((profile) => profile.name.endsWith(model))?.id ?? ''

    // The fleet: Klipper and a virtual printer of one model, OctoPrint of another; all eject their parts.
    const klipper = await fakeMoonraker()
    klipper.behaviour.macros = { EJECT_PARTS: { ms: 100 } }
    klipper.behaviour.bedC = 28
    const octo = await fakeOctoPrint()
    fakes.push(klipper as FakePrinter<CommonBehaviour>, octo as FakePrinter<CommonBehaviour>)
    const voron = await beltPrinter({ name: 'Voron', provider: 'moonraker', address: klipper.url }, profileOf('MK4S'), {
      script: 'EJECT_PARTS',
      below_c: 35,
    })
    const mini = await beltPrinter({ name: 'Mini', provider: 'octoprint', address: octo.url }, profileOf('MINI'), {
      script: 'G28 X\nM84',
      // OctoPrint's bed in the fake stays at 60 °C.
      below_c: 65,
    })
    const bench = await beltPrinter(
      { name: 'Bench', provider: 'virtual', address: 'virtual://bench?heat_seconds=0&print_seconds=1' },
      profileOf('MK4S'),
      { script: 'G28', below_c: 35 },
    )
    await api('POST', '/api/v1/webhooks', {
      name: 'Phone',
      url: `${phone.url}/farm`,
      format: 'ntfy',
      event_types: ['job.completed', 'job.failed', 'printer.error', 'printer.bed_clearing_failed'],
    })

    const stored: Record<string, { modelId: string; file: string }> = {}
    for (const [name, model] of [
      ['desk-organizer', 'MK4S'],
      ['cable-clip', 'MINI'],
      ['lamp-shade', 'MK4S'],
    ] as const) {
      const answer = await upload(vault.baseUrl, token, `${name}.gcode`, slicedGcode(model, 'PLA', name))
      expect(answer.status).toBe(201)
      stored[name] = { modelId: answer.body.model.id, file: `${name}.gcode` }
    }

    // The printers print for a second; Klipper and OctoPrint end their prints as their hosts do.
    let running = true
    const hosts = [
      {
        printing: () => klipper.state.printing !== null && klipper.behaviour.jobState === undefined,
        end: () => (klipper.behaviour.jobState = 'complete'),
      },
      { printing: () => octo.state.printing !== null, end: () => (octo.behaviour.finished = true) },
    ]
    const world = (async () => {
      const since = new Map<object, number>()
      while (running) {
        for (const host of hosts) {
          if (!host.printing()) since.delete(host)
          else if (!since.has(host)) since.set(host, Date.now())
          else if (Date.now() - (since.get(host) ?? 0) > 1_000) host.end()
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })()

    const { page, context, pageErrors } = await openSignedIn(browser, vault.baseUrl, '/farm')
    try {
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.getByRole('heading', { name: 'Farm', level: 1 }).waitFor()
      await queueFromModelPage(page, stored['desk-organizer']?.modelId ?? '', 'desk-organizer.gcode', 3)
      await queueFromModelPage(page, stored['cable-clip']?.modelId ?? '', 'cable-clip.gcode', 2)
      await queueFromModelPage(page, stored['lamp-shade']?.modelId ?? '', 'lamp-shade.gcode', 1, 'left')

      // Nobody at the farm: the queue runs dry on its own.
      const completed = async () => (await api('GET', '/api/v1/queue?state=completed')).items as unknown[]
      await expect.poll(async () => (await completed()).length, { timeout: 60_000, interval: 500 }).toBe(3)
      expect((await api('GET', '/api/v1/queue')).items).toEqual([])
      running = false
      await world

      // What the printers did: six prints, each where it fits (the MINI's clips on the MINI only, the
      // shade on the left group's Voron), none twice.
      const klipperPrints = klipper.requests.filter((r) => r.path === '/printer/print/start').length
      const octoPrints = octo.requests.filter((r) => r.method === 'POST' && r.path === '/api/job').length
      const benchSends = (await api('GET', `/api/v1/printers/${bench}/dispatches`)).items as { outcome: string }[]
      const benchPrints = benchSends.filter((send) => send.outcome === 'confirmed').length
      expect(octoPrints).toBe(2)
      expect(klipperPrints + benchPrints).toBe(4)
      expect(klipperPrints).toBeGreaterThanOrEqual(1)

      // Back at the farm: the completed jobs, each model's history, each printer's history, the phone.
      await page.goto(`${vault.baseUrl}/farm`)
      await page.getByRole('textbox', { name: 'Jobs shown' }).click()
      await page.getByRole('option', { name: 'Completed' }).click()
      for (const name of ['desk-organizer', 'cable-clip', 'lamp-shade'])
        await page.getByRole('listitem', { name: `${name}, completed` }).waitFor()
      await screenshot(page, 'farm-unattended-completed')

      await page.goto(`${vault.baseUrl}/models/${stored['desk-organizer']?.modelId}`)
      await page.getByText('Success rate 100% (3 of 3 completed)').waitFor()
      const history = page.getByRole('table', { name: 'Print history' })
      await expect.poll(() => history.getByText('Completed', { exact: true }).count(), { timeout: 15_000 }).toBe(3)

      for (const [id, prints] of [
        [voron, klipperPrints],
        [mini, octoPrints],
        [bench, benchPrints],
      ] as const) {
        await page.goto(`${vault.baseUrl}/printers/${id}`)
        const printerHistory = page.getByRole('table', { name: 'Print history' })
        await printerHistory.waitFor()
        await expect
          .poll(() => printerHistory.getByText('Completed', { exact: true }).count(), { timeout: 15_000 })
          .toBe(prints)
      }

      await expect.poll(() => phone.requests.length, { timeout: 15_000 }).toBe(3)
      expect(phone.requests.map((request) => request.headers.title).sort()).toEqual([
        'cable-clip: printed',
        'desk-organizer: printed',
        'lamp-shade: printed',
      ])
      expect(pageErrors).toEqual([])
    } finally {
      running = false
      await world
      await context.close()
    }
  }, 180_000)
})
