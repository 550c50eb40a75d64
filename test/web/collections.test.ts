import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, call, login } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

beforeAll(async () => {
  const { vault } = suite
  // Two tagged models, so the tags have counts.
  const token = (await login(vault.baseUrl, admin)).body.access_token
  for (const [size, tags] of [
    [20, ['calibration', 'cube']],
    [30, ['calibration']],
  ] as const) {
    const stored = await upload(vault.baseUrl, token, `cube-${size}.stl`, binaryCube(size))
    const patched = await call(vault.baseUrl, 'PATCH', `/api/v1/models/${stored.body.model.id}`, {
      token,
      json: { tags },
    })
    expect(patched.status).toBe(200)
  }
}, 240_000)

const collectionsTable = (page: Page) => page.getByRole('table', { name: 'Collections' })

async function create(page: Page, name: string): Promise<void> {
  await page.getByLabel('New collection').fill(name)
  await page.getByRole('button', { name: 'Create' }).click()
}

describe('the collections and tags page', () => {
  it('creates, renames and deletes a collection, and names a taken name as the vault does', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/collections',
    )
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Collections and tags', level: 1 }).waitFor()
      await page.getByText('No collections yet.').waitFor()

      await create(page, 'Calibration')
      await collectionsTable(page).getByRole('link', { name: 'Calibration' }).waitFor()
      expect(await page.getByLabel('New collection').inputValue()).toBe('')
      await create(page, 'Benchy')
      await collectionsTable(page).getByRole('link', { name: 'Benchy' }).waitFor()

      // A name the vault has already (in any case) is refused, with the vault's words under the field.
      await create(page, 'calibration')
      await page
        .getByText('A collection named "calibration" exists already (names are compared regardless of case).')
        .waitFor()
      await screenshot(page, 'collections-name-taken')

      await collectionsTable(page).getByRole('button', { name: 'Rename Benchy' }).click()
      const rename = page.getByRole('dialog', { name: 'Rename “Benchy”' })
      await rename.getByLabel('Name').fill('Calibration')
      await rename.getByRole('button', { name: 'Rename' }).click()
      await rename.getByText('A collection named "Calibration" exists already').waitFor()
      await expectAccessible(page, '[role="dialog"]')
      await rename.getByLabel('Name').fill('Boats')
      await rename.getByRole('button', { name: 'Rename' }).click()
      await rename.waitFor({ state: 'hidden' })
      await collectionsTable(page).getByRole('link', { name: 'Boats' }).waitFor()
      expect(await collectionsTable(page).getByRole('link', { name: 'Benchy' }).count()).toBe(0)

      const href = await collectionsTable(page).getByRole('link', { name: 'Boats' }).getAttribute('href')
      expect(href).toMatch(/^\/library\?collection=.+/)
      await screenshot(page, 'collections')
      await expectAccessible(page)

      await collectionsTable(page).getByRole('button', { name: 'Delete Boats' }).click()
      const confirm = page.getByRole('dialog', { name: 'Delete “Boats”?' })
      await confirm.getByText('its 0 models stay in the library').waitFor()
      await screenshot(page, 'collections-delete')
      await expectAccessible(page, '[role="dialog"]')
      await confirm.getByRole('button', { name: 'Delete collection' }).click()
      await confirm.waitFor({ state: 'hidden' })
      await expect.poll(() => collectionsTable(page).getByRole('link', { name: 'Boats' }).count()).toBe(0)
      const listed = await call(suite.vault.baseUrl, 'GET', '/api/v1/collections', {
        token: (await login(suite.vault.baseUrl, admin)).body.access_token,
      })
      expect(listed.body.items.map((item: { name: string }) => item.name)).toEqual(['Calibration'])
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('lists tags with their model counts; a tag opens the library filtered by it', async () => {
    const { page, context } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/collections')
    try {
      await page.setViewportSize({ width: 390, height: 844 })
      await signIn(page, admin)
      const tags = page.getByRole('list', { name: 'Tags' })
      await tags.getByRole('link', { name: /^calibration\s*2 models$/ }).waitFor()
      await tags.getByRole('link', { name: /^cube\s*1 model$/ }).waitFor()
      await screenshot(page, 'collections-narrow')
      await expectAccessible(page)
      await tags.getByRole('link', { name: /^cube\s*1 model$/ }).click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      const url = new URL(page.url())
      expect(`${url.pathname}${url.search}`).toBe('/library?tag=cube')
    } finally {
      await context.close()
    }
  })
})
