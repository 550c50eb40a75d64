import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../../src/core/formats/byte-source.js'
import { openZip } from '../../src/core/formats/zip-reader.js'
import { admin, call, login } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

describe('the model page', () => {
  it('downloads the whole model as a package named after it, with its datapackage.json', async () => {
    const { vault } = suite
    const token = (await login(vault.baseUrl, admin)).body.access_token
    const stored = await upload(vault.baseUrl, token, 'Package-Box.stl', binaryCube(24))
    const modelId = stored.body.model.id as string
    await upload(vault.baseUrl, token, 'notes.txt', 'print at 0.2 mm', { model_id: modelId })
    await call(vault.baseUrl, 'PATCH', `/api/v1/models/${modelId}`, { token, json: { tags: ['box'] } })

    const { page, context, pageErrors } = await openVaultPage(suite.browser, vault.baseUrl, `/models/${modelId}`)
    try {
      await signIn(page, admin)
      const button = page.getByRole('button', { name: 'Download package', exact: true })
      await button.waitFor()
      await expectAccessible(page)
      await screenshot(page, 'model-page-package')
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
      expect(download.suggestedFilename()).toBe('package-box.zip')
      const zip = await openZip(byteSourceFromBytes(new Uint8Array(await readFile(await download.path()))), {
        maxEntries: 100,
        maxEntryBytes: 1024 * 1024,
        maxCompressionRatio: 200,
      })
      expect(zip.entries.map((entry) => entry.name)).toEqual([
        'datapackage.json',
        'Package-Box.stl',
        'documents/notes.txt',
      ])
      const datapackage = JSON.parse(new TextDecoder().decode(await zip.readEntry(zip.entries[0]!)))
      expect(datapackage).toMatchObject({ name: 'package-box', title: 'Package-Box', keywords: ['box'] })
      await button.waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
