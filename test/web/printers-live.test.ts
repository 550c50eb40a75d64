import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { upload } from '../support/uploads.js'
import { openVaultPage, setUpBrowserSuite, signIn } from '../support/web-ui.js'

// The background watch looks at printers twice a second, so a change is published at once.
const suite = setUpBrowserSuite({ ...adminEnv, VAULT_PRINTER_WATCH_MS: '500', VAULT_PRINTER_STATUS_TTL_MS: '0' })

/** How long the page is watched for polls: several of the 2 s polling periods it would otherwise use. */
const quietMs = 5_000

/** Registers a virtual printer through the API; answers its id and the token used. */
async function addVirtualPrinter(name: string, address: string): Promise<{ id: string; token: string }> {
  const token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
  const created = await call(suite.vault.baseUrl, 'POST', '/api/v1/printers', {
    token,
    json: { name, provider: 'virtual', address },
  })
  expect(created.status).toBe(201)
  return { id: created.body.id, token }
}

const removePrinter = ({ id, token }: { id: string; token: string }) =>
  call(suite.vault.baseUrl, 'DELETE', `/api/v1/printers/${id}`, { token })

/** Every request the page makes for the printer list, as it makes them. */
function printerListCalls(page: Page): string[] {
  const calls: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.endsWith('/api/v1/printers')) calls.push(request.url())
  })
  return calls
}

describe('live printer updates', () => {
  it('a printer state change shows on the open dashboard through the event stream, with polling stopped meanwhile', async () => {
    const { baseUrl } = suite.vault
    const printer = await addVirtualPrinter('Shelf', 'virtual://shelf?heat_seconds=0&print_seconds=600')
    const file = await upload(baseUrl, printer.token, 'shelf.gcode', 'G28\nG1 X10 Y10\n')
    expect(file.status).toBe(201)

    const { page, context, pageErrors } = await openVaultPage(suite.browser, baseUrl, '/printers')
    try {
      const calls = printerListCalls(page)
      const streamOpened = page.waitForResponse(
        (response) => new URL(response.url()).pathname.endsWith('/api/v1/events') && response.status() === 200,
      )
      await signIn(page, admin)
      const card = page.getByRole('article', { name: 'Shelf' })
      await card.getByText('Idle').waitFor()
      await streamOpened
      // An observation window, not a wait for something: with the stream open, nothing polls the printers.
      const before = calls.length
      await page.waitForTimeout(quietMs)
      expect(calls.length).toBe(before)

      const sent = await call(baseUrl, 'POST', `/api/v1/printers/${printer.id}/send`, {
        token: printer.token,
        json: { file_id: file.body.file.id, start: true },
      })
      expect(sent.status, JSON.stringify(sent.body)).toBe(201)
      // The state change arrives as an event, which has the dashboard ask again: no reload.
      await card.getByText('Printing', { exact: true }).waitFor({ timeout: 15_000 })
      await card.getByText('shelf.gcode').waitFor()
      expect(calls.length).toBeGreaterThan(before)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
      await removePrinter(printer)
    }
  }, 120_000)

  it('a stream that ends is opened again, resuming after the last event it brought', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/printers')
    try {
      const resumedFrom: (string | undefined)[] = []
      // The first stream brings one event and ends, as a restarting vault or a proxy's timeout would end it.
      await page.route('**/api/v1/events', async (route) => {
        resumedFrom.push(route.request().headers()['last-event-id'])
        if (resumedFrom.length > 1) return route.continue()
        const event = { id: 7, type: 'printer.error', subject: 'printer:x', data: { printer_id: 'x' }, created_at: '' }
        return route.fulfill({
          status: 200,
          contentType: 'text/event-stream',
          body: `retry: 3000\n\n: connected\n\nevent: printer.error\ndata: ${JSON.stringify(event)}\nid: 7\n\n`,
        })
      })
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Printers', level: 1 }).waitFor()
      await expect.poll(() => resumedFrom, { timeout: 10_000 }).toEqual([undefined, '7'])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('without the stream, the dashboard of idle printers polls as before', async () => {
    const printer = await addVirtualPrinter('Spare', 'virtual://spare')
    const { page, context } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/printers')
    try {
      // The stream is refused: the page falls back to polling.
      await page.route('**/api/v1/events', (route) => route.fulfill({ status: 503, body: 'unavailable' }))
      const calls = printerListCalls(page)
      await signIn(page, admin)
      await page.getByRole('article', { name: 'Spare' }).getByText('Idle').waitFor()
      await expect.poll(() => calls.length, { timeout: quietMs * 2 }).toBeGreaterThanOrEqual(3)
    } finally {
      await context.close()
      await removePrinter(printer)
    }
  }, 60_000)
})
