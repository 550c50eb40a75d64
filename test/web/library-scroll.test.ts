import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabaseUrl, writeLibrary } from '../../scripts/bench/library-generator.js'
import { admin, adminEnv, call } from '../support/accounts.js'
import { launchChromium } from '../support/browser.js'
import { type BuiltVault, startBuiltVault } from '../support/built-vault.js'
import { listAllPages } from '../support/library.js'
import { expectAccessible, openVaultPage, screenshotsDir, signIn } from '../support/web-ui.js'

const modelCount = 2000
/** The models in the order the grid shows them with `?sort=name`, read from the API. */
let byName: { id: string; name: string }[] = []
const suite = {} as { vault: BuiltVault; browser: Browser }

beforeAll(async () => {
  // Written straight into the database before the vault starts (2,000 uploads would take minutes),
  // with the library benchmark's generator: names, tags and file summaries like a real library's.
  const prepare = async (database: { url: string }, dataDir: string) => {
    const db = openDatabaseUrl(database.url, dataDir)
    try {
      await writeLibrary(db, modelCount)
    } finally {
      await db.close()
    }
  }
  ;[suite.vault, suite.browser] = await Promise.all([startBuiltVault(adminEnv, prepare), launchChromium()])
  const { access_token: token } = (await call(suite.vault.baseUrl, 'POST', '/api/v1/auth/login', { json: admin }))
    .body as { access_token: string }
  byName = (await listAllPages(suite.vault.baseUrl, token, 'sort=name&limit=200')).items
  expect(byName).toHaveLength(modelCount)
}, 600_000)
afterAll(async () => {
  await suite.browser?.close()
  await suite.vault?.close()
})

const list = (page: Page) => page.getByRole('main').getByRole('list', { name: 'Models' })
const cards = (page: Page) => list(page).getByRole('link')
/** The model link of the card holding focus, or null when focus is not on a card. */
const focusedCard = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    return active?.closest('[role="listitem"]') ? active.getAttribute('href') : null
  })
const href = (model: { id: string } | undefined) => `/models/${model!.id}`

/**
 * Scrolls to the end again and again (each time the next page loads) until `last` shows; answers
 * the most elements `drawn` counted on the way.
 */
async function scrollToEnd(page: Page, last: Locator, drawn: Locator): Promise<number> {
  let most = 0
  for (let step = 0; step < 100 && (await last.count()) === 0; step++) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
    await page
      .waitForFunction((before) => document.documentElement.scrollHeight > before, height, { timeout: 5000 })
      .catch(() => undefined)
    most = Math.max(most, await drawn.count())
  }
  await last.waitFor()
  return most
}

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
      expect(await cards(page).first().getAttribute('href')).toBe(href(byName[0]))

      const last = list(page).locator(`a[href="${href(byName.at(-1))}"]`)
      const mostCards = await scrollToEnd(page, last, cards(page))
      expect(await last.isVisible()).toBe(true)
      // All 2,000 are loaded (the list is as tall as all of them), yet only the rows near the viewport are drawn.
      expect(mostCards).toBeGreaterThan(0)
      expect(mostCards).toBeLessThanOrEqual(60)
      const lastItem = list(page).getByRole('listitem').last()
      expect(await lastItem.getAttribute('aria-posinset')).toBe(String(modelCount))
      expect(await lastItem.getAttribute('aria-setsize')).toBe(String(modelCount))
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(50_000)
      // The viewport only: a full-page picture of a list 2,000 cards tall is too big to take.
      await mkdir(screenshotsDir, { recursive: true })
      await page.screenshot({ path: join(screenshotsDir, 'library-grid-end.png') })
      await expectAccessible(page)

      // Back at the top, Tab walks card after card (its checkbox, then its link) past the rows first drawn, and Shift+Tab back.
      await page.evaluate(() => window.scrollTo(0, 0))
      await cards(page).first().focus()
      expect(await focusedCard(page)).toBe(href(byName[0]))
      for (let i = 0; i < 80; i++) await page.keyboard.press('Tab')
      expect(await focusedCard(page)).toBe(href(byName[40]))
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
      expect(await page.locator(':focus').isVisible()).toBe(true)
      for (let i = 0; i < 10; i++) await page.keyboard.press('Shift+Tab')
      expect(await focusedCard(page)).toBe(href(byName[35]))
      expect(await cards(page).count()).toBeLessThanOrEqual(60)

      await page.keyboard.press('Enter')
      await page.waitForURL(new RegExp(href(byName[35])))
      await page.getByRole('heading', { level: 1, name: byName[35]!.name }).waitFor()
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 300_000)

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
      await table.getByRole('link', { name: byName[0]!.name, exact: true }).waitFor()

      const last = table.locator(`a[href="${href(byName.at(-1))}"]`)
      const mostRows = await scrollToEnd(page, last, rows)
      expect(await last.isVisible()).toBe(true)
      expect(mostRows).toBeGreaterThan(0)
      expect(mostRows).toBeLessThanOrEqual(60)
      // The header is row 1; the last model is row 2,001 of 2,001 once every page is loaded.
      expect(await table.getAttribute('aria-rowcount')).toBe(String(modelCount + 1))
      expect(await last.locator('xpath=ancestor::tr').getAttribute('aria-rowindex')).toBe(String(modelCount + 1))
      // The spacer rows keep the page as tall as every row: the table's columns line up with its header.
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(modelCount * 50)
      await mkdir(screenshotsDir, { recursive: true })
      await page.screenshot({ path: join(screenshotsDir, 'library-list-end.png') })
      await expectAccessible(page)

      await last.click()
      await page.getByRole('heading', { level: 1, name: byName.at(-1)!.name }).waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 300_000)
})
