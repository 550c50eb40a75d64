import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, signIn as apiSignIn, call } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()
let token: string

beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

/** The figure of one totals tile, by its label. */
const tile = (page: Page, label: string) =>
  page.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]')

/** Each of the four components is shown with a status in words. */
async function expectHealth(page: Page) {
  for (const name of ['Database', 'Storage', 'Backup', 'Printers']) {
    const card = page.getByRole('region', { name: `${name} health` })
    await card.waitFor()
    expect(await card.textContent()).toMatch(/Working|Attention|Down/)
  }
  // No backup has been made: the backup component says so rather than a bare status, and that
  // this is what a new install reports, with the way to the first backup.
  const backup = page.getByRole('region', { name: 'Backup health' })
  expect(await backup.textContent()).toContain('Attention')
  expect(await backup.textContent()).toContain('This is expected on a new install.')
  expect(
    new URL(
      await backup.getByRole('link', { name: 'Settings → Storage' }).evaluate((a) => (a as HTMLAnchorElement).href),
    ).pathname,
  ).toBe('/settings/storage')
  await page.getByText('The vault works. Its one warning, no backup yet, is expected on a new install.').waitFor()
  expect(await page.getByRole('region', { name: 'Database health' }).textContent()).toContain('Working')
}

describe('the overview page', () => {
  it('an empty vault points to Upload, and the health of the four components shows', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await page.getByRole('heading', { name: 'Your vault is empty' }).waitFor()
      const uploadLink = page.getByRole('link', { name: 'Upload files' })
      expect(new URL(await uploadLink.evaluate((a) => (a as HTMLAnchorElement).href)).pathname).toBe('/upload')
      await expectHealth(page)
      await screenshot(page, 'overview-empty')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows the totals and breakdowns after two uploads and a duplicate, at desktop and phone widths', async () => {
    const first = await upload(suite.vault.baseUrl, token, 'Small-Cube.stl', binaryCube(20))
    const second = await upload(suite.vault.baseUrl, token, 'Big-Cube.stl', binaryCube(30, 5))
    expect([first.status, second.status]).toEqual([201, 201])
    const again = await upload(suite.vault.baseUrl, token, 'Small-Cube-copy.stl', binaryCube(20))
    expect(again.body.duplicate).toBe(true)
    const tagged = await call(suite.vault.baseUrl, 'PATCH', `/api/v1/models/${first.body.model.id}`, {
      token,
      json: { tags: ['calibration', 'cube'] },
    })
    expect(tagged.status).toBe(200)

    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await expect.poll(() => tile(page, 'Models').textContent()).toBe('2')
      expect(await tile(page, 'Files').textContent()).toBe('2')
      expect(await tile(page, 'Saved by deduplication').first().textContent()).toBe('684 B')
      expect(await page.getByText('1 duplicate upload', { exact: true }).count()).toBe(1)
      // The charts (a chunk of their own) with their figures in words.
      const formats = page.getByRole('figure', { name: 'Formats' })
      await formats.locator('.recharts-surface').first().waitFor()
      expect(await formats.textContent()).toContain('2 files')
      expect(await page.getByRole('figure', { name: 'Tags' }).textContent()).toContain('calibration')
      expect(await page.getByRole('figure', { name: 'Slicers' }).textContent()).toContain('No G-code file')
      await page.getByRole('figure', { name: 'Space saved by deduplication' }).getByText('684 B').waitFor()
      await expectHealth(page)
      await screenshot(page, 'overview')
      await expectAccessible(page)
      await page.setViewportSize({ width: 390, height: 844 })
      await tile(page, 'Models').waitFor()
      await screenshot(page, 'overview-phone')
      await expectAccessible(page)
      // Dark, as the system asks.
      await page.emulateMedia({ colorScheme: 'dark' })
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.mantineColorScheme)).toBe('dark')
      await screenshot(page, 'overview-phone-dark')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
