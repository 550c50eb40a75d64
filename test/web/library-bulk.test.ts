import { readFile } from 'node:fs/promises'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { openZip } from '../../src/core/formats/zip-reader.js'
import { admin, call, login } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import {
  expectAccessible,
  expectNoSidewaysScroll,
  openVaultPage,
  screenshot,
  setUpBrowserSuite,
  signIn,
} from '../support/web-ui.js'

const suite = setUpBrowserSuite()
let token = ''
let shelf = ''

beforeAll(async () => {
  const { vault } = suite
  token = (await login(vault.baseUrl, admin)).body.access_token
  for (let n = 1; n <= 6; n++) {
    const stored = await upload(vault.baseUrl, token, `Part 0${n}.stl`, binaryCube(40 + n))
    expect(stored.status).toBe(201)
  }
  shelf = (await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Shelf' } })).body.id
}, 240_000)

/** The names of the models the list API finds for `query`, sorted. */
const namesFound = async (query: string) =>
  (
    (await call(suite.vault.baseUrl, 'GET', `/api/v1/models?sort=name&${query}`, { token })).body as {
      items: { name: string }[]
    }
  ).items.map((model) => model.name)

const checkbox = (page: Page, name: string) => page.getByRole('checkbox', { name: `Select ${name}` })
const selectionBar = (page: Page) => page.getByRole('region', { name: 'Selection' })
const dialog = (page: Page) => page.getByRole('dialog')

describe('acting on many models in the library', () => {
  it('selects with clicks and Shift, tags and collects the selection, then deletes all matching after counting', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library?sort=name',
    )
    try {
      await page.setViewportSize({ width: 1440, height: 900 })
      await signIn(page, admin)
      await checkbox(page, 'Part 01').click()
      await checkbox(page, 'Part 03').click({ modifiers: ['Shift'] })
      await selectionBar(page).getByText('3 selected').waitFor()
      expect(await checkbox(page, 'Part 02').isChecked()).toBe(true)
      expect(await checkbox(page, 'Part 04').isChecked()).toBe(false)
      await selectionBar(page).getByRole('button', { name: 'Select all matching the filter (6)' }).waitFor()
      await screenshot(page, 'library-bulk-selected')
      await expectAccessible(page)

      await selectionBar(page).getByRole('button', { name: 'Add tags' }).click()
      await dialog(page).getByLabel('Tags').fill('batch')
      await dialog(page).getByLabel('Tags').press('Enter')
      await screenshot(page, 'library-bulk-tags')
      await expectAccessible(page, '[role="dialog"]')
      await dialog(page).getByRole('button', { name: 'Add tags' }).click()
      await page.getByText('Tagged 3 models.').waitFor()
      expect(await namesFound('tag=batch')).toEqual(['Part 01', 'Part 02', 'Part 03'])

      // The selection stays for the next action.
      await selectionBar(page).getByRole('button', { name: 'Add to collection' }).click()
      await dialog(page).getByLabel('Collection').click()
      await page.getByRole('option', { name: 'Shelf' }).click()
      await dialog(page).getByRole('button', { name: 'Add to collection' }).click()
      await page.getByText('Added 3 models to the collection.').waitFor()
      expect(await namesFound(`collection=${shelf}`)).toEqual(['Part 01', 'Part 02', 'Part 03'])

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        selectionBar(page).getByRole('button', { name: 'Download as package' }).click(),
      ])
      expect(download.suggestedFilename()).toMatch(/^model-vault-packages-\d{4}-\d{2}-\d{2}\.zip$/)
      const zip = await openZip(byteSourceFromBytes(new Uint8Array(await readFile(await download.path()))), {
        maxEntries: 100,
        maxEntryBytes: 1024 * 1024,
        maxCompressionRatio: 200,
      })
      const folders = new Set(zip.entries.map((entry) => entry.name.split('/')[0]))
      expect([...folders].sort()).toEqual(['part-01', 'part-02', 'part-03'])

      await page.goto(`${suite.vault.baseUrl}/library?sort=name&tag=batch`)
      await checkbox(page, 'Part 02').click()
      await selectionBar(page).getByRole('button', { name: 'Select all matching the filter (3)' }).click()
      await selectionBar(page).getByText('All 3 matching selected').waitFor()
      await selectionBar(page).getByRole('button', { name: 'Delete' }).click()
      await dialog(page).getByText('Delete 3 models and their 3 files?').waitFor()
      await screenshot(page, 'library-bulk-delete')
      await expectAccessible(page, '[role="dialog"]')
      await dialog(page).getByRole('button', { name: 'Delete 3 models' }).click()
      await page.getByText('Deleted 3 models.').waitFor()
      expect(await namesFound('')).toEqual(['Part 04', 'Part 05', 'Part 06'])
      await expect.poll(() => selectionBar(page).count()).toBe(0)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('selects in the list view on a phone, where the selection bar fits the width', async () => {
    const { page, context, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library?sort=name&view=list',
    )
    try {
      await page.setViewportSize({ width: 390, height: 844 })
      await signIn(page, admin)
      await checkbox(page, 'Part 04').click()
      // Space ticks the next row's checkbox from the keyboard.
      await checkbox(page, 'Part 05').focus()
      await page.keyboard.press('Space')
      await selectionBar(page).getByText('2 selected').waitFor()
      // One line on a phone: the actions wait in a menu rather than cover the rows.
      expect((await selectionBar(page).boundingBox())?.height).toBeLessThan(80)
      await screenshot(page, 'library-bulk-phone')
      await expectAccessible(page)
      await expectNoSidewaysScroll(page)
      await selectionBar(page).getByRole('button', { name: 'Actions' }).click()
      await page.getByRole('menuitem', { name: 'Delete' }).waitFor()
      await page.getByRole('menuitem', { name: 'Select all matching the filter (3)' }).click()
      await selectionBar(page).getByText('All 3 matching selected').waitFor()
      await selectionBar(page).getByRole('button', { name: 'Clear' }).click()
      await expect.poll(() => selectionBar(page).count()).toBe(0)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
