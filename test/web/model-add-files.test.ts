import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, signIn as apiSignIn, call } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()
let folders: string
let token: string

beforeAll(async () => {
  folders = await mkdtemp(join(tmpdir(), 'vault-model-add-e2e-'))
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

afterAll(() => rm(folders, { recursive: true, force: true }))

/** A model of one cube, made through the API. */
async function cubeModel(name: string, size: number): Promise<{ id: string; name: string }> {
  const reply = await upload(suite.vault.baseUrl, token, `${name}.stl`, binaryCube(size))
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.model
}

const filesOf = async (id: string) =>
  (
    (await call(suite.vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })).body.files as {
      name: string
      folder: string
    }[]
  )
    .map(({ name, folder }) => (folder ? `${folder}/${name}` : name))
    .sort()

async function openModelPage(model: { id: string; name: string }) {
  const opened = await openVaultPage(suite.browser, suite.vault.baseUrl, `/models/${model.id}`)
  await signIn(opened.page, admin)
  await opened.page.getByRole('heading', { name: model.name, level: 1 }).waitFor()
  return opened
}

/** Drags files over the page and drops them, as the desktop does, through a drop event carrying a DataTransfer. */
async function dropFiles(
  page: Page,
  modelName: string,
  files: { name: string; bytes: Uint8Array }[],
  overlayScreenshot?: string,
) {
  const dataTransfer = await page.evaluateHandle(
    (list) => {
      const transfer = new DataTransfer()
      for (const { name, bytes } of list) transfer.items.add(new File([new Uint8Array(bytes)], name))
      return transfer
    },
    files.map(({ name, bytes }) => ({ name, bytes: [...bytes] })),
  )
  await page.locator('body').dispatchEvent('dragenter', { dataTransfer })
  const overlay = page.getByText(`Drop to add to ${modelName}`)
  await overlay.waitFor()
  if (overlayScreenshot) await screenshot(page, overlayScreenshot)
  await overlay.dispatchEvent('drop', { dataTransfer })
}

/**
 * Drops a folder from disk the way a file manager does: Chromium's own drag of those paths (the
 * page reads the folder's entries), sent through the DevTools protocol at the page's middle.
 */
async function dropFolder(page: Page, path: string) {
  const cdp = await page.context().newCDPSession(page)
  const data = { items: [], files: [path], dragOperationsMask: 1 }
  const at = { x: 640, y: 400 }
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
    await cdp.send('Input.dispatchDragEvent', { type, ...at, data })
  }
  await cdp.detach()
}

const uploads = (page: Page) => page.getByRole('list', { name: 'Uploads to this model' })

async function expectOutcome(page: Page, label: string, text: string): Promise<void> {
  await expect
    .poll(() => uploads(page).getByRole('listitem', { name: label }).textContent(), { timeout: 15_000 })
    .toContain(text)
}

const inFolder = (page: Page, folder: string, file: string) =>
  page.getByRole('region', { name: folder ? `Folder ${folder}` : 'Top folder' }).getByRole('article', { name: file })

describe("adding files on a model's page", () => {
  it('adds dropped files and a dropped folder to this model, each in its folder, and tells duplicates apart', async () => {
    const model = await cubeModel('Bracket', 21)
    const { page, context, pageErrors } = await openModelPage(model)
    try {
      await dropFiles(
        page,
        model.name,
        [
          { name: 'bracket-left.stl', bytes: binaryCube(22) },
          { name: 'bracket-right.stl', bytes: binaryCube(23) },
        ],
        'model-add-files-drop-overlay',
      )
      await expectOutcome(page, 'bracket-left.stl', 'Joined model Bracket')
      await expectOutcome(page, 'bracket-right.stl', 'Joined model Bracket')
      // The page refreshes once the queue is done: the new files are in the tree.
      await inFolder(page, '', 'bracket-left.stl').waitFor()
      await inFolder(page, '', 'bracket-right.stl').waitFor()

      // A folder with a sub-folder: its files keep their folders below the dropped one.
      const extras = join(folders, 'extras')
      await mkdir(join(extras, 'supports'), { recursive: true })
      await writeFile(join(extras, 'clip.stl'), binaryCube(24))
      await writeFile(join(extras, 'supports', 'pin.stl'), binaryCube(25))
      await writeFile(join(extras, '.DS_Store'), 'finder litter')
      await dropFolder(page, extras)
      await expectOutcome(page, 'extras/clip.stl', 'Joined model Bracket')
      await expectOutcome(page, 'extras/supports/pin.stl', 'Joined model Bracket')
      await inFolder(page, '', 'clip.stl').waitFor()
      await inFolder(page, 'supports', 'pin.stl').waitFor()
      expect(await filesOf(model.id)).toEqual([
        'Bracket.stl',
        'bracket-left.stl',
        'bracket-right.stl',
        'clip.stl',
        'supports/pin.stl',
      ])

      // Bytes the model holds already: a duplicate, not an error.
      await page.getByRole('button', { name: 'Clear the list' }).click()
      await dropFiles(page, model.name, [{ name: 'left-again.stl', bytes: binaryCube(22) }])
      await expectOutcome(page, 'left-again.stl', 'Already in the vault: Bracket')
      expect(await uploads(page).getByRole('alert').count()).toBe(0)
      expect(await filesOf(model.id)).toHaveLength(5)
      await screenshot(page, 'model-add-files-dropped')
      await expectAccessible(page)

      // Away from the model's page a drop uploads as anywhere else.
      await page.getByRole('link', { name: '← Library' }).click()
      const dataTransfer = await page.evaluateHandle(() => new DataTransfer())
      await page.locator('body').dispatchEvent('dragenter', { dataTransfer })
      await page.getByText('Drop files and folders to upload them').waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('adds files chosen with "Add files"', async () => {
    const model = await cubeModel('Hinge', 31)
    const chosen = join(folders, 'hinge-pin.stl')
    await writeFile(chosen, binaryCube(32))
    const { page, context, pageErrors } = await openModelPage(model)
    try {
      const chooser = page.waitForEvent('filechooser')
      await page.getByRole('button', { name: 'Add files' }).click()
      await (await chooser).setFiles(chosen)
      await expectOutcome(page, 'hinge-pin.stl', 'Joined model Hinge')
      await inFolder(page, '', 'hinge-pin.stl').waitFor()
      expect(await filesOf(model.id)).toEqual(['Hinge.stl', 'hinge-pin.stl'])
      await screenshot(page, 'model-add-files-chosen')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe("a model's license", () => {
  it('is picked from the SPDX list, makers’ licenses first, or typed as free text', async () => {
    const model = await cubeModel('Gear', 41)
    const { page, context, pageErrors } = await openModelPage(model)
    const licenseOf = async () =>
      (await call(suite.vault.baseUrl, 'GET', `/api/v1/models/${model.id}`, { token })).body.license
    try {
      await page.getByRole('button', { name: 'Edit license' }).click()
      const field = page.getByRole('textbox', { name: 'License' })
      await field.click()
      // Before anything is typed, the licenses makers use come first.
      const options = page.getByRole('option')
      await expect
        .poll(async () => (await options.allTextContents()).slice(0, 3))
        .toEqual([
          'CC-BY-4.0 Creative Commons Attribution 4.0 International',
          'CC-BY-SA-4.0 Creative Commons Attribution Share Alike 4.0 International',
          'CC-BY-NC-4.0 Creative Commons Attribution Non Commercial 4.0 International',
        ])
      // Found by a word of its name.
      await field.fill('share alike 4.0')
      await screenshot(page, 'model-license-suggestions')
      await page.getByRole('option', { name: /^CC-BY-NC-SA-4\.0 / }).click()
      expect(await field.inputValue()).toBe('CC-BY-NC-SA-4.0')
      await page.getByRole('button', { name: 'Save license' }).click()
      const link = page.getByRole('link', {
        name: 'Creative Commons Attribution Non Commercial Share Alike 4.0 International',
      })
      expect(await link.getAttribute('href')).toBe('https://spdx.org/licenses/CC-BY-NC-SA-4.0.html')
      expect(await licenseOf()).toBe('CC-BY-NC-SA-4.0')
      await screenshot(page, 'model-license-spdx')

      // Free text is kept as typed and shown as text.
      await page.getByRole('button', { name: 'Edit license' }).click()
      await page.getByRole('textbox', { name: 'License' }).fill('Standard Digital File License')
      await page.getByRole('button', { name: 'Save license' }).click()
      await page.getByText('License: Standard Digital File License').waitFor()
      expect(await page.getByRole('link', { name: /Creative Commons/ }).count()).toBe(0)
      expect(await licenseOf()).toBe('Standard Digital File License')
      await screenshot(page, 'model-license-free-text')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
