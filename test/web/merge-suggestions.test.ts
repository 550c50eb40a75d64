import { beforeAll, describe, expect, it } from 'vitest'
import { admin, signIn as apiSignIn, call } from '../support/accounts.js'
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
let token: string

/** A model of one file, made by name as an earlier version made one per file. */
async function modelOf(name: string, file: string, bytes: Uint8Array | string): Promise<string> {
  const made = await upload(suite.vault.baseUrl, token, file, bytes, { model_name: name })
  expect(made.status).toBe(201)
  return made.body.model.id
}

beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
  await modelOf('Box', 'box.stl', binaryCube(81))
  await modelOf('box', 'box-lid.stl', binaryCube(82))
  await modelOf('Hinge', 'hinge.stl', binaryCube(83))
  await modelOf('hinge', 'hinge-v2.stl', binaryCube(84))
  await modelOf('Clip', 'clip.stl', binaryCube(85))
  await modelOf('Clip print', 'clip_0.2mm_PLA.gcode', `; ${crypto.randomUUID()}\nG1 X1\n`)
})

const modelNames = async () =>
  (await call(suite.vault.baseUrl, 'GET', '/api/v1/models?limit=50', { token })).body.items
    .map((model: { name: string }) => model.name)
    .sort()

describe('models that look like one', () => {
  it('the overview points to them; each group is merged after a confirmation or dismissed, never by itself', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      const notice = page.getByRole('alert').filter({ hasText: 'Models that look like one' })
      await notice.getByText('3 groups of models look like one model.').waitFor()
      await notice.getByRole('link', { name: 'Review them' }).click()
      await page.getByRole('heading', { name: 'Models that look like one', level: 1 }).waitFor()
      const groups = page.getByRole('list', { name: 'Groups' })
      await groups.getByRole('listitem').nth(2).waitFor()
      await screenshot(page, 'merge-suggestions')
      await expectAccessible(page)
      // Nothing is merged by looking.
      expect(await modelNames()).toHaveLength(6)

      const clip = groups.getByRole('listitem').filter({ hasText: 'G-code sliced from its mesh' })
      await clip.getByRole('button', { name: /^Merge into/ }).click()
      const confirm = page.getByRole('dialog', { name: /^Merge into/ })
      await confirm.getByText('with their tags and collections, join').waitFor()
      await screenshot(page, 'merge-suggestions-confirm')
      await expectAccessible(page, '[role="dialog"]')
      await confirm.getByRole('button', { name: 'Merge', exact: true }).click()
      await confirm.waitFor({ state: 'hidden' })
      await expect.poll(() => groups.getByRole('listitem').count()).toBe(2)
      expect(await modelNames()).toHaveLength(5)

      const hinge = groups
        .getByRole('listitem')
        .filter({ hasText: /hinge-v2|Hinge/ })
        .first()
      await hinge.getByRole('button', { name: 'Not the same' }).click()
      await expect.poll(() => groups.getByRole('listitem').count()).toBe(1)
      expect(await modelNames()).toHaveLength(5)

      await page.setViewportSize({ width: 390, height: 844 })
      await groups.getByRole('listitem').first().waitFor()
      await expectNoSidewaysScroll(page)
      await screenshot(page, 'merge-suggestions-narrow')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
