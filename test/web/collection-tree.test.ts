import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
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

const collectionsTable = (page: Page) => page.getByRole('table', { name: 'Collections' })
/** The names in the collections table, top to bottom, each with how far it is indented. */
const tableTree = (page: Page) =>
  collectionsTable(page)
    .locator('tbody tr td:first-child')
    .evaluateAll((cells) => cells.map((cell) => [cell.textContent, getComputedStyle(cell).paddingLeft]))

/** Picks a collection by its path in the "Inside" field of `within`. */
async function chooseParent(page: Page, within: Page | ReturnType<Page['getByRole']>, path: string) {
  await within.getByRole('textbox', { name: 'Inside' }).click()
  await page.getByRole('option', { name: path, exact: true }).click()
}

async function create(page: Page, name: string, inside?: string) {
  await page.getByLabel('New collection').fill(name)
  if (inside) await chooseParent(page, page, inside)
  await page.getByRole('button', { name: 'Create' }).click()
  await collectionsTable(page).getByRole('link', { name }).waitFor()
}

describe('the tree of collections', () => {
  for (const width of [1280, 390])
    it(`creates collections inside others, shows them indented, moves one and keeps a parent from deletion (${width} px)`, async () => {
      const { page, context, blocked, pageErrors } = await openVaultPage(
        suite.browser,
        suite.vault.baseUrl,
        '/collections',
      )
      try {
        await page.setViewportSize({ width, height: 900 })
        await signIn(page, admin)
        await page.getByRole('heading', { name: 'Collections and tags', level: 1 }).waitFor()
        const [terrain, walls, doors] = [`Terrain ${width}`, `Walls ${width}`, `Doors ${width}`]
        await create(page, terrain)
        await create(page, walls, terrain)
        await create(page, doors, terrain)
        // Siblings by name under their parent, each indented one step further than it.
        await expect.poll(() => tableTree(page)).toContainEqual([walls, expect.any(String)])
        const tree = Object.fromEntries(await tableTree(page))
        expect(Number.parseFloat(tree[walls]!)).toBeGreaterThan(Number.parseFloat(tree[terrain]!))
        expect(tree[doors]).toBe(tree[walls])
        const names = (await tableTree(page)).map(([name]) => name)
        expect(names.indexOf(doors)).toBe(names.indexOf(terrain) + 1)
        await screenshot(page, `collection-tree-${width}`)
        await expectAccessible(page)
        await expectNoSidewaysScroll(page)

        // Doors moves into Walls; Walls' own subtree is not offered as its new place.
        await collectionsTable(page)
          .getByRole('button', { name: `Move ${doors}` })
          .click()
        const move = page.getByRole('dialog', { name: `Move “${doors}”` })
        await chooseParent(page, move, `${terrain} › ${walls}`)
        await screenshot(page, `collection-move-${width}`)
        await expectAccessible(page, '[role="dialog"]')
        await move.getByRole('button', { name: 'Move' }).click()
        await move.waitFor({ state: 'hidden' })
        await expect
          .poll(async () => (await tableTree(page)).map(([name]) => name).filter((name) => name?.endsWith(` ${width}`)))
          .toEqual([terrain, walls, doors])
        await collectionsTable(page)
          .getByRole('button', { name: `Move ${terrain}` })
          .click()
        const moveTop = page.getByRole('dialog', { name: `Move “${terrain}”` })
        await moveTop.getByRole('textbox', { name: 'Inside' }).click()
        expect(await page.getByRole('option', { name: `${terrain} › ${walls}`, exact: true }).count()).toBe(0)
        await page.keyboard.press('Escape')
        await moveTop.getByRole('button', { name: 'Cancel' }).click()
        await moveTop.waitFor({ state: 'hidden' })

        // A collection with collections inside it stays, and the dialog says why.
        await collectionsTable(page)
          .getByRole('button', { name: `Delete ${terrain}` })
          .click()
        const confirm = page.getByRole('dialog', { name: `Delete “${terrain}”?` })
        await confirm.getByText('It holds a collection: move or delete it first.').waitFor()
        await confirm.getByRole('button', { name: 'Delete collection' }).click()
        await confirm.getByText(`Collection "${walls}" and maybe others are inside it`).waitFor()
        await screenshot(page, `collection-delete-refused-${width}`)
        await confirm.getByRole('button', { name: 'Keep it' }).click()

        const token = (await login(suite.vault.baseUrl, admin)).body.access_token
        const listed = (await call(suite.vault.baseUrl, 'GET', '/api/v1/collections', { token })).body.items as {
          id: string
          name: string
          parent_id: string | null
        }[]
        const idOf = (name: string) => listed.find((item) => item.name === name)?.id
        expect(listed.find((item) => item.name === doors)?.parent_id).toBe(idOf(walls))
        expect(listed.find((item) => item.name === walls)?.parent_id).toBe(idOf(terrain))
        expect(blocked).toEqual([])
        expect(pageErrors).toEqual([])
      } finally {
        await context.close()
      }
    })

  it('filters the library by a collection with what is inside it, names collections by their path, and shows and chooses covers', async () => {
    const token = (await login(suite.vault.baseUrl, admin)).body.access_token
    const make = async (name: string, parent_id?: string) =>
      (await call(suite.vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name, parent_id } })).body
        .id as string
    const shelf = await make('Shelf')
    const bins = await make('Bins', shelf)
    const stored = await upload(suite.vault.baseUrl, token, 'Small bin.stl', binaryCube(31))
    const modelId = stored.body.model.id as string
    expect(
      (await call(suite.vault.baseUrl, 'PUT', `/api/v1/collections/${bins}/models/${modelId}`, { token })).status,
    ).toBeLessThan(300)

    const { page, context, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      `/library?collection=${shelf}`,
    )
    try {
      await page.setViewportSize({ width: 1280, height: 900 })
      await signIn(page, admin)
      // The model sits in Bins, inside Shelf: filtering by Shelf shows it.
      await page
        .getByRole('main')
        .getByRole('link', { name: /^Small bin/ })
        .first()
        .waitFor()
      await page.getByRole('textbox', { name: 'Collection' }).click()
      await page.getByRole('option', { name: 'Shelf › Bins (1)' }).waitFor()
      await page.keyboard.press('Escape')

      await page.goto(new URL(`models/${modelId}`, `${suite.vault.baseUrl}/`).href)
      await page.getByRole('heading', { name: 'Small bin', level: 1 }).waitFor()
      await page.getByText('Shelf › Bins').first().waitFor()
      await expectAccessible(page)

      // The collections page shows each collection's cover; Edit chooses it among the collection's models.
      await page.goto(new URL('collections', `${suite.vault.baseUrl}/`).href)
      await page.getByRole('img', { name: 'Cover of Bins' }).waitFor()
      await page.getByRole('button', { name: 'Edit Bins' }).click()
      const dialog = page.getByRole('dialog', { name: 'Edit “Bins”' })
      await dialog.getByRole('textbox', { name: 'Cover' }).click()
      await page.getByRole('option', { name: 'Small bin' }).click()
      await expectAccessible(page, '[role="dialog"]')
      await dialog.getByRole('button', { name: 'Save' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await expect
        .poll(async () => (await call(suite.vault.baseUrl, 'GET', `/api/v1/collections/${bins}`, { token })).body)
        .toMatchObject({ cover_model_id: modelId, cover_chosen: true })
      await screenshot(page, 'collections-with-covers')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
