import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { admin } from '../support/accounts.js'
import { largeLibrarySize, modelHref, scrollToEnd, setUpLargeLibrary } from '../support/large-library.js'
import { expectAccessible, openVaultPage, screenshotsDir, signIn } from '../support/web-ui.js'

const suite = setUpLargeLibrary()

const list = (page: Page) => page.getByRole('main').getByRole('list', { name: 'Models' })
const cards = (page: Page) => list(page).getByRole('link')
/** The model link of the card holding focus, or null when focus is not on a card. */
const focusedCard = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    return active?.closest('[role="listitem"]') ? active.getAttribute('href') : null
  })

describe('the library grid with thousands of models', () => {
  it('keeps a bounded number of cards in the page while scrolling to the last of 2,000 models', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library?sort=name',
    )
    try {
      await signIn(page, admin)
      await cards(page).first().waitFor()
      expect(await cards(page).first().getAttribute('href')).toBe(modelHref(suite.byName[0]))

      const last = list(page).locator(`a[href="${modelHref(suite.byName.at(-1))}"]`)
      const mostCards = await scrollToEnd(page, last, cards(page))
      expect(await last.isVisible()).toBe(true)
      // All 2,000 are loaded (the list is as tall as all of them), yet only the rows near the viewport are drawn.
      expect(mostCards).toBeGreaterThan(0)
      expect(mostCards).toBeLessThanOrEqual(60)
      const lastItem = list(page).getByRole('listitem').last()
      expect(await lastItem.getAttribute('aria-posinset')).toBe(String(largeLibrarySize))
      expect(await lastItem.getAttribute('aria-setsize')).toBe(String(largeLibrarySize))
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(50_000)
      // The viewport only: a full-page picture of a list 2,000 cards tall is too big to take.
      await mkdir(screenshotsDir, { recursive: true })
      await page.screenshot({ path: join(screenshotsDir, 'library-grid-end.png') })
      await expectAccessible(page)

      // Back at the top, Tab walks card after card (its checkbox, then its link) past the rows first drawn, and Shift+Tab back.
      await page.evaluate(() => window.scrollTo(0, 0))
      await cards(page).first().focus()
      expect(await focusedCard(page)).toBe(modelHref(suite.byName[0]))
      for (let i = 0; i < 80; i++) await page.keyboard.press('Tab')
      expect(await focusedCard(page)).toBe(modelHref(suite.byName[40]))
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
      expect(await page.locator(':focus').isVisible()).toBe(true)
      for (let i = 0; i < 10; i++) await page.keyboard.press('Shift+Tab')
      expect(await focusedCard(page)).toBe(modelHref(suite.byName[35]))
      expect(await cards(page).count()).toBeLessThanOrEqual(60)

      await page.keyboard.press('Enter')
      await page.waitForURL(new RegExp(modelHref(suite.byName[35])))
      await page.getByRole('heading', { level: 1, name: suite.byName[35]!.name }).waitFor()
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 300_000)
})
