import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { upload } from '../support/uploads.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite } from '../support/web-ui.js'

const suite = setUpBrowserSuite({ ...adminEnv, VAULT_PRINTER_STATUS_TTL_MS: '0' })
let token: string

beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

describe('print controls', () => {
  it('pauses a print from the farm card after asking, resumes it, and cancels it from the printer page', async () => {
    const { vault, browser } = suite
    const file = await upload(vault.baseUrl, token, 'lid.gcode', ['G21', 'G28', 'G1 X10 Y10 E1', ''].join('\n'))
    expect(file.status).toBe(201)
    const created = await call(vault.baseUrl, 'POST', '/api/v1/printers', {
      token,
      json: { name: 'Bench', provider: 'virtual', address: 'virtual://bench?heat_seconds=0&print_seconds=3600' },
    })
    const printerId: string = created.body.id
    const sent = await call(vault.baseUrl, 'POST', `/api/v1/printers/${printerId}/send`, {
      token,
      json: { file_id: file.body.file.id, start: true },
    })
    expect(sent.body.outcome).toBe('confirmed')

    const { page, context, pageErrors } = await openSignedIn(browser, vault.baseUrl, '/farm')
    try {
      await page.setViewportSize({ width: 1440, height: 900 })
      const card = page.getByRole('article', { name: 'Bench' })
      // Printing: pause and cancel, no resume.
      await card.getByRole('button', { name: 'Pause the print on Bench' }).click()
      expect(await card.getByRole('button', { name: 'Resume the print on Bench' }).count()).toBe(0)
      const asked = page.getByRole('dialog', { name: 'Pause the print?' })
      await asked.getByText('lid.gcode').waitFor()
      await screenshot(page, 'print-controls-pause')
      await expectAccessible(page, '[role="dialog"]')
      await asked.getByRole('button', { name: 'Pause' }).click()
      await asked.waitFor({ state: 'detached' })
      await card
        .getByRole('status')
        .getByText(/Bench took the command and is paused/)
        .waitFor()
      await card.getByRole('button', { name: 'Resume the print on Bench' }).click()
      await card
        .getByRole('status')
        .getByText(/is printing again/)
        .waitFor()

      await page.goto(`${vault.baseUrl}/printers/${printerId}`)
      await page.getByRole('button', { name: 'Cancel the print on Bench' }).click()
      const cancel = page.getByRole('dialog', { name: 'Cancel the print?' })
      await cancel.getByText(/The print stops for good/).waitFor()
      await cancel.getByRole('button', { name: 'Cancel print' }).click()
      await page
        .getByRole('status')
        .getByText(/Bench took the command and is stopped/)
        .waitFor()
      await page.getByRole('button', { name: 'Pause the print on Bench' }).waitFor({ state: 'detached' })
      await screenshot(page, 'print-controls-cancelled')
      const printer = await call(vault.baseUrl, 'GET', `/api/v1/printers/${printerId}`, { token })
      expect(printer.body.status.job).toMatchObject({ file_name: 'lid.gcode', ended: 'cancelled' })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
