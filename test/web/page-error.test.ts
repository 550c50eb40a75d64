import { describe, expect, it } from 'vitest'
import { admin } from '../support/accounts.js'
import { openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

describe('a page whose code cannot load', () => {
  it('says the vault was updated and reloads into the page, the navigation still working, never a white page', async () => {
    const { page, context, blocked } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/library')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()

      // As after an upgrade: the chunks this tab's build names are gone from the server.
      const gone = /\/assets\/.+\.js$/
      await page.route(gone, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }))
      await page.getByRole('link', { name: 'Printers' }).first().click()
      await page.getByRole('heading', { name: 'The vault was updated', level: 1 }).waitFor()
      expect(await page.getByRole('alert').textContent()).toContain('Reloading fetches the current version')
      expect(await page.getByRole('link', { name: 'Library' }).first().isVisible()).toBe(true)
      await screenshot(page, 'page-error-stale-chunk')

      // The navigation still works: another page replaces the error.
      await page.getByRole('link', { name: 'Library' }).first().click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      expect(await page.getByRole('heading', { name: 'The vault was updated' }).count()).toBe(0)

      // With the chunks served again, Reload opens the page.
      await page.getByRole('link', { name: 'Printers' }).first().click()
      await page.getByRole('heading', { name: 'The vault was updated', level: 1 }).waitFor()
      await page.unroute(gone)
      await page.getByRole('button', { name: 'Reload' }).click()
      await page.getByRole('heading', { name: 'Printers', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/printers')
      expect(blocked).toEqual([])
    } finally {
      await context.close()
    }
  })
})
