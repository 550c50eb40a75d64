import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { admin, call } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

/** The model cards of the grid: links named after their model. */
const cards = (page: Page) => page.getByRole('main').getByRole('link', { name: /^Cube \d+|^Benchy hull/ })
/** The last card the grid has drawn, as an item of the list of models. */
const lastCardItem = (page: Page) =>
  page.getByRole('main').getByRole('list', { name: 'Models' }).getByRole('listitem').last()
/** Page script: every distinct top of the grid while the page is drawn, in `window.gridTops`. */
const recordGridTops = `
  const tops = (window.gridTops = [])
  new MutationObserver(() => {
    const grid = document.querySelector('[role="list"][aria-label="Models"]')
    const top = grid && Math.round(grid.getBoundingClientRect().top + window.scrollY)
    if (grid && tops.at(-1) !== top) tops.push(top)
  }).observe(document, { subtree: true, childList: true, attributes: true })
`

describe('the library page', () => {
  it('an empty library says how to add files', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/library')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Your library is empty' }).waitFor()
      expect(await page.getByRole('link', { name: 'Upload files' }).getAttribute('href')).toBe('/upload')
      await screenshot(page, 'library-empty')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows cards with server thumbnails, loads more on scroll, and keeps search, sort and view in the URL', async () => {
    const login = await fetch(`${suite.vault.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(admin),
    })
    const { access_token: token } = (await login.json()) as { access_token: string }
    // One page is 48 cards: 50 models need a second page.
    for (let n = 1; n <= 49; n++) {
      const reply = await upload(
        suite.vault.baseUrl,
        token,
        `Cube ${String(n).padStart(2, '0')}.stl`,
        binaryCube(10 + n),
      )
      expect(reply.status).toBe(201)
    }
    expect((await upload(suite.vault.baseUrl, token, 'Benchy hull.stl', binaryCube(7, 3))).status).toBe(201)

    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/library')
    try {
      await signIn(page, admin)
      await cards(page).first().waitFor()
      // The first page, and the second once the end of the grid comes near. The grid draws only
      // the rows near the viewport; each card says its place in the list, and the list's size once all are loaded.
      expect(await lastCardItem(page).getAttribute('aria-posinset')).not.toBeNull()
      // Thumbnails come from the server, through the signed-in client, as images.
      await page.getByRole('main').locator('img[src^="blob:"]').first().waitFor()
      await screenshot(page, 'library-grid')
      await expectAccessible(page)

      await page.mouse.wheel(0, 20_000)
      await expect.poll(() => lastCardItem(page).getAttribute('aria-setsize'), { timeout: 10_000 }).toBe('50')
      await expect.poll(() => lastCardItem(page).getAttribute('aria-posinset'), { timeout: 10_000 }).toBe('50')

      await page.getByLabel('Search').fill('benchy')
      await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(1)
      expect(new URL(page.url()).searchParams.get('q')).toBe('benchy')
      await page.reload()
      await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(1)
      expect(await page.getByLabel('Search').inputValue()).toBe('benchy')
      await screenshot(page, 'library-search')

      await page.getByLabel('Search').fill('no such model anywhere')
      await page.getByRole('heading', { name: 'No models match' }).waitFor()
      await page.getByRole('button', { name: 'Clear search and filters' }).click()
      await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBeGreaterThan(1)

      await page.getByRole('textbox', { name: 'Sort by' }).click()
      await page.getByRole('option', { name: 'Name' }).click()
      await expect.poll(() => cards(page).first().textContent(), { timeout: 10_000 }).toContain('Benchy hull')
      expect(new URL(page.url()).searchParams.get('sort')).toBe('name')

      await page.getByText('List', { exact: true }).click()
      await page.getByRole('columnheader', { name: 'Formats' }).waitFor()
      expect(new URL(page.url()).searchParams.get('view')).toBe('list')
      await screenshot(page, 'library-list')
      await expectAccessible(page)

      await cards(page).first().click()
      await page.waitForURL(/\/models\//)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 180_000)
  it('filters by tag, collection and date from the URL, as the collections page links to it', async () => {
    const token = (
      (await call(suite.vault.baseUrl, 'POST', '/api/v1/auth/login', { json: admin })).body as {
        access_token: string
      }
    ).access_token
    const tagged = (await upload(suite.vault.baseUrl, token, 'Tagged part.stl', binaryCube(97))).body as {
      model: { id: string }
    }
    expect(
      (
        await call(suite.vault.baseUrl, 'PATCH', `/api/v1/models/${tagged.model.id}`, {
          token,
          json: { tags: ['calibration'] },
        })
      ).status,
    ).toBe(200)
    const collection = (
      await call(suite.vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Shelf' } })
    ).body as { id: string }
    const grouped = (await upload(suite.vault.baseUrl, token, 'Grouped part.stl', binaryCube(98))).body as {
      model: { id: string }
    }
    expect(
      (
        await call(suite.vault.baseUrl, 'PUT', `/api/v1/collections/${collection.id}/models/${grouped.model.id}`, {
          token,
        })
      ).status,
    ).toBeLessThan(300)

    const { page, context, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library?tag=calibration',
    )
    const names = () =>
      page
        .getByRole('main')
        .getByRole('link', { name: /^(Tagged|Grouped) part/ })
        .allTextContents()
    try {
      await signIn(page, admin)
      await expect.poll(names, { timeout: 10_000 }).toEqual([expect.stringContaining('Tagged part')])
      expect(await page.getByRole('textbox', { name: 'Tags' }).isVisible()).toBe(true)
      await screenshot(page, 'library-filtered-by-tag')
      await expectAccessible(page)

      // The first drawing has disabled stand-ins for the toolbar's comboboxes; the comboboxes replace
      // them without moving the grid.
      await page.addInitScript({ content: recordGridTops })
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.reload()
      await expect.poll(names, { timeout: 10_000 }).toEqual([expect.stringContaining('Tagged part')])
      await expect.poll(() => page.getByRole('textbox', { name: 'Tags' }).isEnabled(), { timeout: 10_000 }).toBe(true)
      await page.getByRole('textbox', { name: 'Sort by' }).click()
      await page.keyboard.press('Escape')
      expect(await page.evaluate(() => (window as unknown as { gridTops: number[] }).gridTops)).toHaveLength(1)

      // A phone: the filters wait in a drawer behind a button that counts them, and the cards start on the first screen.
      await page.setViewportSize({ width: 390, height: 844 })
      await page.reload()
      await expect.poll(names, { timeout: 10_000 }).toEqual([expect.stringContaining('Tagged part')])
      const filters = page.getByRole('button', { name: 'Filters 1 active' })
      await filters.waitFor()
      expect(await page.getByRole('textbox', { name: 'Tags' }).count()).toBe(0)
      const firstCard = page
        .getByRole('main')
        .getByRole('link', { name: /^Tagged part/ })
        .first()
      expect((await firstCard.boundingBox())?.y).toBeLessThan(422)
      expect(await page.evaluate(() => (window as unknown as { gridTops: number[] }).gridTops)).toHaveLength(1)
      await screenshot(page, 'library-phone-filters-closed')
      await expectAccessible(page)
      await filters.click()
      const drawer = page.getByRole('dialog', { name: 'Filters and sort' })
      await drawer.getByText('calibration').first().waitFor()
      await drawer.getByRole('checkbox', { name: 'Has G-code' }).click()
      await expect.poll(() => new URL(page.url()).searchParams.get('gcode')).not.toBeNull()
      await screenshot(page, 'library-phone-filters-open')
      await expectAccessible(page, '[role="dialog"]')
      await drawer.getByRole('button', { name: 'Show models' }).click()
      await page.getByRole('button', { name: 'Filters 2 active' }).waitFor()
      await page.getByRole('heading', { name: 'No models match' }).waitFor()
      await page.setViewportSize({ width: 1280, height: 900 })

      await page.goto(new URL(`library?collection=${collection.id}`, `${suite.vault.baseUrl}/`).href)
      await expect.poll(names, { timeout: 10_000 }).toEqual([expect.stringContaining('Grouped part')])

      // Nothing was added after today: a range that ends yesterday matches no model.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
      await page.goto(new URL(`library?to=${yesterday}`, `${suite.vault.baseUrl}/`).href)
      await page.getByRole('heading', { name: 'No models match' }).waitFor()
      await page.getByRole('button', { name: 'Clear search and filters' }).click()
      await expect.poll(names, { timeout: 10_000 }).toHaveLength(2)
      expect(new URL(page.url()).search).toBe('')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
