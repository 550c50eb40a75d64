import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
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
const tagsTable = (page: Page) => page.getByRole('table', { name: 'Tags' })

/** The tags table's rows: each tag's name and its model count. */
const tagCounts = async (page: Page): Promise<Record<string, string>> =>
  Object.fromEntries(
    await tagsTable(page)
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent ?? '')),
      ),
  )

async function create(page: Page, name: string): Promise<void> {
  await page.getByLabel('New collection').fill(name)
  await page.getByRole('button', { name: 'Create' }).click()
}

describe('the collections and tags page', () => {
  it('creates, renames, describes and deletes a collection, and names a taken name as the vault does', async () => {
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

      await collectionsTable(page).getByRole('button', { name: 'Edit Benchy' }).click()
      const edit = page.getByRole('dialog', { name: 'Edit “Benchy”' })
      await edit.getByLabel('Name').fill('Calibration')
      await edit.getByRole('button', { name: 'Save' }).click()
      await edit.getByText('A collection named "Calibration" exists already').waitFor()
      await expectAccessible(page, '[role="dialog"]')
      await edit.getByLabel('Name').fill('Boats')
      // The description is Markdown, shown rendered under the name; raw HTML is dropped.
      await edit.getByLabel('Description').fill('Hulls **that float**. <b>not bold</b>')
      await edit.getByRole('button', { name: 'Save' }).click()
      await edit.waitFor({ state: 'hidden' })
      await collectionsTable(page).getByRole('link', { name: 'Boats' }).waitFor()
      expect(await collectionsTable(page).getByRole('link', { name: 'Benchy' }).count()).toBe(0)
      await collectionsTable(page).locator('strong', { hasText: 'that float' }).waitFor()
      expect(await collectionsTable(page).locator('b').count()).toBe(0)

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
      await tagsTable(page).getByRole('link', { name: 'cube' }).waitFor()
      expect(await tagCounts(page)).toEqual({ calibration: '2', cube: '1' })
      await screenshot(page, 'collections-narrow')
      await expectAccessible(page)
      // Nothing scrolls sideways at phone width.
      await expectNoSidewaysScroll(page)
      await tagsTable(page).getByRole('link', { name: 'cube' }).click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      const url = new URL(page.url())
      expect(`${url.pathname}${url.search}`).toBe('/library?tag=cube')
    } finally {
      await context.close()
    }
  })

  it('renames a tag, merges one into another after saying so, and deletes one after counting its models', async () => {
    const token = (await login(suite.vault.baseUrl, admin)).body.access_token
    for (const [size, tags] of [
      [40, ['mini', 'stray']],
      [41, ['Miniature', 'stray']],
    ] as const) {
      const stored = await upload(suite.vault.baseUrl, token, `tagged-${size}.stl`, binaryCube(size))
      const patched = await call(suite.vault.baseUrl, 'PATCH', `/api/v1/models/${stored.body.model.id}`, {
        token,
        json: { tags },
      })
      expect(patched.status).toBe(200)
    }
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/collections',
    )
    try {
      await signIn(page, admin)
      await tagsTable(page).getByRole('link', { name: 'mini', exact: true }).waitFor()

      await tagsTable(page).getByRole('button', { name: 'Rename tag cube' }).click()
      const rename = page.getByRole('dialog', { name: 'Rename tag “cube”' })
      await rename.getByText('The tag changes on its 1 model.').waitFor()
      await rename.getByLabel('Tag').fill('Cubes')
      await rename.getByRole('button', { name: 'Rename' }).click()
      await rename.waitFor({ state: 'hidden' })
      await expect.poll(() => tagCounts(page)).toMatchObject({ Cubes: '1' })
      expect(await tagCounts(page)).not.toHaveProperty('cube')

      await tagsTable(page).getByRole('button', { name: 'Rename tag mini', exact: true }).click()
      const merge = page.getByRole('dialog', { name: 'Rename tag “mini”' })
      await merge.getByLabel('Tag').fill('miniature')
      await merge
        .getByText(
          '“Miniature” is already a tag, of 1 model: the two become one tag, “miniature”, on every model of either.',
        )
        .waitFor()
      await screenshot(page, 'tags-merge')
      await expectAccessible(page, '[role="dialog"]')
      await merge.getByRole('button', { name: 'Merge tags' }).click()
      await merge.waitFor({ state: 'hidden' })
      await expect.poll(() => tagCounts(page)).toMatchObject({ miniature: '2' })
      expect(await tagCounts(page)).not.toHaveProperty('mini')

      await tagsTable(page).getByRole('button', { name: 'Delete tag stray' }).click()
      const remove = page.getByRole('dialog', { name: 'Delete tag “stray”?' })
      await remove
        .getByText('The tag is taken off all 2 models that carry it; the models stay in the library.')
        .waitFor()
      await remove.getByRole('button', { name: 'Delete tag' }).click()
      await remove.waitFor({ state: 'hidden' })
      await expect.poll(async () => Object.keys(await tagCounts(page))).not.toContain('stray')
      await screenshot(page, 'tags')
      await expectAccessible(page)

      const tags = await call(suite.vault.baseUrl, 'GET', '/api/v1/tags', { token })
      expect(tags.body.items.map((tag: { name: string; model_count: number }) => [tag.name, tag.model_count])).toEqual([
        ['calibration', 2],
        ['Cubes', 1],
        ['miniature', 2],
      ])
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe("a model's tag box", () => {
  it('saves only a tag picked or confirmed with Enter, never half-typed text left behind', async () => {
    const token = (await login(suite.vault.baseUrl, admin)).body.access_token
    const stored = await upload(suite.vault.baseUrl, token, 'tag-box.stl', binaryCube(50))
    const id = stored.body.model.id as string
    const tagsOf = async () =>
      (await call(suite.vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })).body.tags as string[]
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, `/models/${id}`)
    try {
      await signIn(page, admin)
      const box = page.getByRole('textbox', { name: 'Tags' })
      // Typed to find "calibration", then Esc and a click elsewhere: nothing is saved.
      await box.fill('cal')
      await page.getByRole('option', { name: 'calibration' }).waitFor()
      await box.press('Escape')
      await page.getByRole('heading', { level: 1 }).click()
      expect(await box.inputValue()).toBe('')
      // Picked from the list: saved.
      await box.fill('cal')
      await page.getByRole('option', { name: 'calibration' }).click()
      await expect.poll(tagsOf).toEqual(['calibration'])
      // Typed and confirmed with Enter: saved; typed and left by Tab: not.
      await box.fill('benchy')
      await box.press('Enter')
      await expect.poll(tagsOf).toEqual(['benchy', 'calibration'])
      await box.fill('half')
      await box.press('Tab')
      await page.getByRole('heading', { level: 1 }).click()
      // A later save would carry the half-typed text with it: make one, and look at what it saved.
      await box.fill('last')
      await box.press('Enter')
      await expect.poll(tagsOf).toEqual(['benchy', 'calibration', 'last'])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
