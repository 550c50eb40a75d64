import { readFile } from 'node:fs/promises'
import { encode as encodePng } from 'fast-png'
import { describe, expect, it } from 'vitest'
import { admin, signIn as apiSignIn, call } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

/** A small PNG of one colour, so the two images (and the cover) can be told apart. */
const swatch = (red: number, green: number, blue: number) =>
  encodePng({
    width: 48,
    height: 32,
    data: new Uint8Array(48 * 32 * 3).map((_, i) => [red, green, blue][i % 3]!),
    channels: 3,
    depth: 8,
  })

describe('the pictures and documents of a model', () => {
  it('show as a gallery with the cover first and a list of documents to download; another image becomes the cover', async () => {
    const { vault, browser } = suite
    const token = (await apiSignIn(vault.baseUrl, admin)).access_token
    const mesh = await upload(vault.baseUrl, token, 'Bracket.stl', binaryCube(33))
    const modelId: string = mesh.body.model.id
    const readme = '# Bracket\n\nPrint with 3 walls.\n'
    for (const [name, bytes] of [
      ['front.png', swatch(200, 40, 40)],
      ['side.png', swatch(40, 40, 200)],
      ['README.md', readme],
    ] as const) {
      const reply = await upload(vault.baseUrl, token, name, bytes, { model_id: modelId })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    }

    const { page, context, pageErrors } = await openVaultPage(browser, vault.baseUrl, `/models/${modelId}`)
    try {
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
      await signIn(page, admin)
      const gallery = page.getByRole('region', { name: 'Images' })
      await gallery.getByRole('img', { name: 'front.png' }).waitFor()
      const figures = gallery.getByRole('figure')
      await expect.poll(() => figures.allTextContents()).toEqual(['Cover', 'Use as cover'])
      expect(await figures.first().getAttribute('aria-label')).toBe('front.png')
      const documents = page.getByRole('region', { name: 'Documents' })
      await documents.getByText('README.md').waitFor()
      // Images and documents are not repeated among the parts.
      expect(await page.getByRole('region', { name: 'Files' }).getByRole('article').count()).toBe(1)
      await expectAccessible(page)
      await screenshot(page, 'model-page-media')

      await gallery.getByRole('button', { name: 'View side.png' }).click()
      const dialog = page.getByRole('dialog', { name: 'side.png' })
      await dialog.getByRole('img', { name: 'side.png' }).waitFor()
      // The browser asks for reduced motion, so the dialog is not faded in: whole as soon as it is there.
      const { opacity, transitionDuration } = await dialog.evaluate((element) => getComputedStyle(element))
      expect({ opacity, transitionDuration }).toEqual({ opacity: '1', transitionDuration: '0s' })
      await expectAccessible(page, '[role="dialog"]')
      await screenshot(page, 'model-page-image-large')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })

      await gallery.getByRole('button', { name: 'Use as cover: side.png' }).click()
      await expect.poll(() => figures.first().getAttribute('aria-label')).toBe('side.png')
      await expect.poll(() => figures.allTextContents()).toEqual(['Cover', 'Use as cover'])
      const model = await call(vault.baseUrl, 'GET', `/api/v1/models/${modelId}`, { token })
      const side = model.body.files.find((file: { name: string }) => file.name === 'side.png')
      expect(model.body.cover_file_id).toBe(side.id)

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        documents.getByRole('button', { name: 'Download README.md' }).click(),
      ])
      expect(download.suggestedFilename()).toBe('README.md')
      expect(await readFile(await download.path(), 'utf8')).toBe(readme)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 180_000)
})
