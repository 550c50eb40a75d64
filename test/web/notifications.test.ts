import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, call, login } from '../support/accounts.js'
import {
  expectAccessible,
  expectNoSidewaysScroll,
  openVaultPage,
  screenshot,
  setUpBrowserSuite,
  signIn,
} from '../support/web-ui.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js'

const suite = setUpBrowserSuite()
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await receiver?.close()
})

describe('Settings → Notifications', () => {
  it('adds a generic webhook (a refused URL said on its field), shows its secret once, sends a test that the log shows, and deletes it', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/settings/notifications',
    )
    try {
      await page.setViewportSize({ width: 1440, height: 900 })
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
      await page.getByText('No webhooks yet.').waitFor()

      await page.getByRole('button', { name: 'Add webhook' }).click()
      const form = page.getByRole('dialog', { name: 'Add a webhook' })
      await form.getByRole('textbox', { name: 'Name' }).fill('Script')
      await form.getByRole('textbox', { name: 'URL' }).fill('ftp://127.0.0.1/hook')
      await form.getByRole('checkbox', { name: 'A printer changed state' }).check()
      await form.getByRole('button', { name: 'Add webhook' }).click()
      // The vault's reason, under the field it concerns.
      const urlField = form.getByRole('textbox', { name: 'URL' })
      await form.getByText('must be an http:// or https:// URL').waitFor()
      expect(await urlField.getAttribute('aria-invalid')).toBe('true')
      await screenshot(page, 'notifications-refused-url')
      await expectAccessible(page, '[role="dialog"]')

      await urlField.fill(`${receiver.url}/hook`)
      await form.getByRole('button', { name: 'Add webhook' }).click()
      const shown = page.getByRole('dialog', { name: 'Signing secret of “Script”' })
      await shown.getByText('This is the only time the vault shows this secret.').waitFor()
      const secret = (await shown.getByLabel('Signing secret').textContent())?.trim() ?? ''
      expect(secret.length).toBeGreaterThan(20)
      await shown.getByRole('button', { name: 'Copy secret' }).waitFor()
      await shown.getByRole('link', { name: 'How to verify a delivery' }).waitFor()
      await screenshot(page, 'notifications-new-secret')
      await expectAccessible(page, '[role="dialog"]')
      await shown.getByRole('button', { name: 'Done' }).click()
      await shown.waitFor({ state: 'hidden' })

      const table = page.getByRole('table', { name: 'Webhooks' })
      const row = table.getByRole('row', { name: /Script/ })
      await row.getByText('None yet').waitFor()
      expect(await row.textContent()).toContain('A printer changed state')
      expect(await page.getByText(secret).count()).toBe(0)

      // A test goes to the receiver, signed with the secret shown, and its outcome is told.
      await row.getByRole('button', { name: 'Send test to Script' }).click()
      const outcome = page
        .getByRole('alert')
        .filter({ hasText: 'Test to “Script”: delivered. The receiver answered 200.' })
      await outcome.waitFor()
      // Checked for contrast once it has slid in (while it fades in, its text is faint on purpose).
      const opacity = () =>
        outcome.evaluate((element) => {
          let seen = 1
          for (let at: Element | null = element; at; at = at.parentElement) seen *= Number(getComputedStyle(at).opacity)
          return seen
        })
      await expect.poll(opacity).toBe(1)
      expect(receiver.requests).toHaveLength(1)
      const [received] = receiver.requests
      const timestamp = String(received?.headers['x-vault-timestamp'])
      const expected = createHmac('sha256', secret).update(`${timestamp}.${received?.body}`).digest('hex')
      expect(received?.headers['x-vault-signature']).toBe(`sha256=${expected}`)
      await row.getByText('Delivered').waitFor()
      await row.getByText('200').waitFor()
      await screenshot(page, 'notifications')
      await expectAccessible(page)

      // A receiver that fails: the log says so, with its code.
      receiver.answerWith(503)
      await row.getByRole('button', { name: 'Send test to Script' }).click()
      await page.getByText(/^Test to “Script”: not delivered \(.*503.*\)\.$/).waitFor()
      await row.getByRole('button', { name: 'Deliveries to Script' }).click()
      const log = page.getByRole('dialog', { name: 'Deliveries to “Script”' })
      const deliveries = log.getByRole('table', { name: 'Deliveries' })
      await deliveries.getByRole('cell', { name: '503', exact: true }).waitFor()
      await deliveries.getByRole('cell', { name: '200', exact: true }).waitFor()
      // Newest first.
      const rows = deliveries.getByRole('row')
      expect(await rows.nth(1).textContent()).toMatch(/Test.*Failed.*503/)
      expect(await rows.nth(2).textContent()).toMatch(/Test.*Delivered.*200/)
      await screenshot(page, 'notifications-deliveries')
      await expectAccessible(page, '[role="dialog"]')
      await log.getByRole('button', { name: 'Close' }).click()
      await log.waitFor({ state: 'hidden' })

      await page.setViewportSize({ width: 390, height: 844 })
      const cards = page.getByRole('list', { name: 'Webhooks' })
      await cards.getByRole('button', { name: 'Delete Script' }).waitFor()
      await expectNoSidewaysScroll(page)
      await screenshot(page, 'notifications-narrow')
      await expectAccessible(page)

      await cards.getByRole('button', { name: 'Delete Script' }).click()
      const confirm = page.getByRole('dialog', { name: 'Delete “Script”?' })
      await confirm.getByText('its delivery log goes with it').waitFor()
      await confirm.getByRole('button', { name: 'Delete webhook' }).click()
      await page.getByText('No webhooks yet.').waitFor()
      const token = (await login(suite.vault.baseUrl, admin)).body.access_token as string
      expect((await call(suite.vault.baseUrl, 'GET', '/api/v1/webhooks', { token })).body.items).toEqual([])
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
