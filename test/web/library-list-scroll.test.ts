import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { admin } from '../support/accounts.js'
import { largeLibrarySize, modelHref, scrollToEnd, setUpLargeLibrary } from '../support/large-library.js'
import { expectAccessible, openVaultPage, screenshotsDir, signIn } from '../support/web-ui.js'

const suite = setUpLargeLibrary()

describe('the library list with thousands of models', () => {
  it('keeps a bounded number of rows in the list view too, each row saying its place in the table', async () => {
    const { page, context, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library?sort=name&view=list',
    )
    try {
      await signIn(page, admin)
      const table = page.getByRole('main').getByRole('table')
      const rows = table.getByRole('row')
      await table.getByRole('link', { name: suite.byName[0]!.name, exact: true }).waitFor()

      const last = table.locator(`a[href="${modelHref(suite.byName.at(-1))}"]`)
      const mostRows = await scrollToEnd(page, last, rows)
      expect(await last.isVisible()).toBe(true)
      expect(mostRows).toBeGreaterThan(0)
      expect(mostRows).toBeLessThanOrEqual(60)
      // The header is row 1; the last model is row 2,001 of 2,001 once every page is loaded.
      expect(await table.getAttribute('aria-rowcount')).toBe(String(largeLibrarySize + 1))
      expect(await last.locator('xpath=ancestor::tr').getAttribute('aria-rowindex')).toBe(String(largeLibrarySize + 1))
      // The spacer rows keep the page as tall as every row: the table's columns line up with its header.
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(largeLibrarySize * 50)
      await mkdir(screenshotsDir, { recursive: true })
      await page.screenshot({ path: join(screenshotsDir, 'library-list-end.png') })
      await expectAccessible(page)

      await last.click()
      await page.getByRole('heading', { level: 1, name: suite.byName.at(-1)!.name }).waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 300_000)
})
