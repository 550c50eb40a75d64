import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import type { CDPSession, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, login } from '../support/accounts.js'
import { asciiCube, binaryCube } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

/** A 1 × 1 PNG. */
const onePixelPng = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** Small enough that a test file can exceed it. */
const maxUploadBytes = 4000

const suite = setUpBrowserSuite({ ...adminEnv, VAULT_MAX_UPLOAD_BYTES: String(maxUploadBytes) })
let folders: string

beforeAll(async () => {
  folders = await mkdtemp(join(tmpdir(), 'vault-upload-e2e-'))
})

afterAll(() => rm(folders, { recursive: true, force: true }))

type DroppedFile = { name: string; bytes: Uint8Array }

/** A DataTransfer in the page holding `files`, as a drag from the desktop carries them. */
const transferOf = (page: Page, files: DroppedFile[]) =>
  page.evaluateHandle(
    (list) => {
      const transfer = new DataTransfer()
      for (const { name, bytes } of list) transfer.items.add(new File([new Uint8Array(bytes)], name))
      return transfer
    },
    files.map(({ name, bytes }) => ({ name, bytes: [...bytes] })),
  )

/** Drops files on the Upload page's drop area the way a browser does: a drop event carrying a DataTransfer. */
async function dropFiles(page: Page, files: DroppedFile[]): Promise<void> {
  const dataTransfer = await transferOf(page, files)
  await page.getByLabel('Drop area for files and folders').dispatchEvent('drop', { dataTransfer })
}

/** Drags files over any page (the window becomes a drop target) and drops them there. */
async function dropAnywhere(page: Page, files: DroppedFile[]): Promise<void> {
  const dataTransfer = await transferOf(page, files)
  await page.locator('body').dispatchEvent('dragenter', { dataTransfer })
  const target = page.getByText('Drop files and folders to upload them')
  await target.waitFor()
  await target.dispatchEvent('drop', { dataTransfer })
}

/** Picks files or a folder through the page's own buttons and the browser's file chooser. */
async function choose(page: Page, button: 'Choose files' | 'Choose a folder', paths: string | string[]) {
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: button }).click()
  await (await chooser).setFiles(paths)
}

/** Limits how fast the browser sends (bytes per second). */
const throttleUploads = (cdp: CDPSession, uploadThroughput: number) =>
  cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput })

const row = (page: Page, label: string) =>
  page.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name: label })

async function expectOutcome(page: Page, label: string, text: string): Promise<void> {
  await expect.poll(() => row(page, label).textContent(), { timeout: 15_000 }).toContain(text)
}

describe('the upload page', () => {
  it('takes dropped files and a chosen folder, and says where each file went', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      await screenshot(page, 'upload')
      await expectAccessible(page)

      await dropFiles(page, [
        { name: 'cube-20.stl', bytes: binaryCube(20) },
        { name: 'cube-30.stl', bytes: binaryCube(30) },
      ])
      await expectOutcome(page, 'cube-20.stl', 'New model cube-20')
      await expectOutcome(page, 'cube-30.stl', 'New model cube-30')

      // A folder with a sub-folder: the same mesh as ASCII STL joins its model; hidden files stay behind.
      const parts = join(folders, 'parts')
      await mkdir(join(parts, 'small'), { recursive: true })
      await writeFile(join(parts, 'cube-20-ascii.stl'), asciiCube(20))
      await writeFile(join(parts, 'small', 'cube-10.stl'), binaryCube(10))
      await writeFile(join(parts, '.DS_Store'), 'finder litter')
      // Each file its own way, as asked (a folder is one model by default: the next test).
      await page.getByText('One model per file').click()
      await choose(page, 'Choose a folder', parts)
      await expectOutcome(page, 'parts/cube-20-ascii.stl', 'Joined model cube-20')
      await expectOutcome(page, 'parts/small/cube-10.stl', 'New model cube-10')
      expect(await page.getByRole('listitem', { name: /DS_Store/ }).count()).toBe(0)

      const bar = row(page, 'parts/small/cube-10.stl').getByRole('progressbar', {
        name: 'Upload of parts/small/cube-10.stl',
      })
      expect(await bar.getAttribute('aria-valuenow')).toBe('100')
      expect(await row(page, 'parts/small/cube-10.stl').textContent()).toContain('684 B of 684 B · 100%')
      await page.getByText('4 of 4 files done').waitFor()
      await page.getByText('3 new models · 1 joined a model · 0 already in the vault').waitFor()
      await screenshot(page, 'upload-outcomes')
      await expectAccessible(page)

      // The same bytes again: nothing new, and a link to where they already are.
      await page.getByRole('button', { name: 'Clear the list' }).click()
      const again = join(folders, 'cube-30.stl')
      await writeFile(again, binaryCube(30))
      await choose(page, 'Choose files', again)
      await expectOutcome(page, 'cube-30.stl', 'Already in the vault: cube-30')
      await row(page, 'cube-30.stl').getByRole('link', { name: 'cube-30' }).click()
      expect(new URL(page.url()).pathname).toMatch(/^\/models\/.+/)

      await page.setViewportSize({ width: 390, height: 844 })
      await page.goBack()
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      await dropFiles(page, [{ name: 'narrow-cube.stl', bytes: binaryCube(12) }])
      await expectOutcome(page, 'narrow-cube.stl', 'New model narrow-cube')
      await screenshot(page, 'upload-narrow')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('makes one model of a chosen folder, named after it, which its pictures, documents and slicer config join; its README describes it', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      // A Printables download: meshes in a sub-folder, a photo and a README beside them.
      const dragon = join(folders, 'Articulated Dragon')
      await mkdir(join(dragon, 'stls'), { recursive: true })
      await writeFile(join(dragon, 'README.md'), '# Articulated Dragon\nPrint in place.\n')
      await writeFile(join(dragon, 'photo.png'), Buffer.from(onePixelPng, 'base64'))
      await writeFile(join(dragon, 'stls', 'body.stl'), binaryCube(24))
      await writeFile(join(dragon, 'stls', 'tail.stl'), binaryCube(26))
      // A slicer config never makes the model, even sent first: it joins the one the meshes make.
      await writeFile(join(dragon, 'PrusaSlicer_config.ini'), 'layer_height = 0.2\n')
      await choose(page, 'Choose a folder', dragon)
      await page.getByText('5 of 5 files done').waitFor({ timeout: 15_000 })
      await page.getByText('1 new model · 4 joined a model · 0 already in the vault').waitFor()
      for (const label of ['PrusaSlicer_config.ini', 'README.md', 'photo.png', 'stls/body.stl', 'stls/tail.stl'])
        await expectOutcome(page, `Articulated Dragon/${label}`, 'model Articulated Dragon')
      await screenshot(page, 'upload-folder-model')

      const token = (await login(suite.vault.baseUrl, admin)).body.access_token as string
      const found = await call(suite.vault.baseUrl, 'GET', '/api/v1/models?q=Articulated', { token })
      expect(found.body.items.map((model: { name: string }) => model.name)).toEqual(['Articulated Dragon'])
      const model = await call(suite.vault.baseUrl, 'GET', `/api/v1/models/${found.body.items[0].id}`, { token })
      // The folder's README is the model's description.
      expect(model.body.description).toBe('# Articulated Dragon\nPrint in place.')
      expect(model.body.files.map((file: { name: string }) => file.name).sort()).toEqual([
        'PrusaSlicer_config.ini',
        'README.md',
        'body.stl',
        'photo.png',
        'tail.stl',
      ])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('uploads three at a time, and cancels one file or all of them', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      // A slow line, so the uploads are still running when the buttons are pressed.
      const cdp = await context.newCDPSession(page)
      await throttleUploads(cdp, 1000)
      const names = ['slow-1.obj', 'slow-2.obj', 'slow-3.obj', 'slow-4.obj']
      await dropFiles(
        page,
        // 30 s of sending on that line: still sending (and so still cancellable) when Cancel is pressed.
        names.map((name) => ({ name, bytes: new Uint8Array(30_000).fill(35) })),
      )
      await expect.poll(() => page.getByText('Waiting').count()).toBe(1)
      await row(page, 'slow-4.obj').getByText('Waiting').waitFor()
      await screenshot(page, 'upload-running')
      await expectAccessible(page)

      await page.getByRole('button', { name: 'Cancel slow-1.obj' }).click()
      await expectOutcome(page, 'slow-1.obj', 'Cancelled')
      await page.getByRole('button', { name: 'Cancel all' }).click()
      for (const name of names) await expectOutcome(page, name, 'Cancelled')
      await page.getByText('0 refused · 0 failed · 4 cancelled').waitFor()

      const token = (await login(suite.vault.baseUrl, admin)).body.access_token
      const models = await call(suite.vault.baseUrl, 'GET', '/api/v1/models?q=slow', { token })
      expect(models.body.items).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows why the vault refused a file: empty, or over the size limit', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      await dropFiles(page, [
        { name: 'empty.stl', bytes: new Uint8Array(0) },
        { name: 'too-big.stl', bytes: new Uint8Array(maxUploadBytes + 1000) },
      ])
      await expectOutcome(page, 'empty.stl', 'Refused: The uploaded file is empty.')
      await expectOutcome(
        page,
        'too-big.stl',
        `Refused: The upload is larger than the limit of ${maxUploadBytes} bytes (VAULT_MAX_UPLOAD_BYTES).`,
      )
      await page.getByText('0 new models · 0 joined a model · 0 already in the vault · 2 refused').waitFor()
      await screenshot(page, 'upload-refused')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('unpacks a dropped zip and says which model it made, what it stored and why it skipped the rest', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      const zip = zipSync({
        'Boat/hull.stl': binaryCube(14),
        'Boat/deck.stl': binaryCube(16),
        'Boat/.DS_Store': new TextEncoder().encode('finder litter'),
        'Boat/spares.zip': zipSync({ 'mast.stl': binaryCube(18) }),
      })
      await dropFiles(page, [{ name: 'Boat.zip', bytes: zip }])
      await expectOutcome(page, 'Boat.zip', 'New model Boat')
      await expectOutcome(page, 'Boat.zip', 'Unpacked: 2 stored · 0 already in the vault · 2 skipped')
      await page.getByText('1 zip unpacked').waitFor()
      await row(page, 'Boat.zip').getByRole('button', { name: 'Why 2 skipped' }).click()
      await row(page, 'Boat.zip').getByText('nested archives are not unpacked: upload it on its own').waitFor()
      await screenshot(page, 'upload-zip')
      await expectAccessible(page)

      await page.getByRole('button', { name: 'Clear the list' }).click()
      await dropFiles(page, [{ name: 'Boat.zip', bytes: zip }])
      await expectOutcome(page, 'Boat.zip', 'Joined Boat')
      await expectOutcome(page, 'Boat.zip', 'Unpacked: 0 stored · 2 already in the vault · 2 skipped')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('goes on uploading while you browse, shows its progress in the header, and takes drops on any page', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      const cdp = await context.newCDPSession(page)
      await throttleUploads(cdp, 2000)
      const obj = (n: number) => ({ name: `browse-${n}.obj`, bytes: new Uint8Array(3000 + n).fill(35) })
      await dropFiles(page, [obj(1), obj(2)])

      // Off to the library while both are on their way: the header says how far they are.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Library' }).click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      const indicator = page.getByRole('link', {
        name: /^Uploads: \d of 2 files uploaded(, \d processing)?, \d+% sent$/,
      })
      await indicator.waitFor()
      await screenshot(page, 'upload-header-progress')
      await expectAccessible(page)

      // Leaving the tab now would lose them: the browser asks first.
      const asked = page.waitForEvent('dialog')
      await page.close({ runBeforeUnload: true })
      const dialog = await asked
      expect(dialog.type()).toBe('beforeunload')
      await dialog.dismiss()
      expect(page.isClosed()).toBe(false)

      // Dropped on the library page, a third file joins the same queue.
      await dropAnywhere(page, [obj(3)])
      await page.getByRole('link', { name: /^Uploads: \d of 3 files uploaded/ }).waitFor()
      await throttleUploads(cdp, -1)
      await page.getByRole('link', { name: /^Uploads:/ }).waitFor({ state: 'hidden', timeout: 30_000 })

      // Every file arrived, and the library shows them without a reload.
      for (const n of [1, 2, 3])
        await page
          .getByRole('link', { name: `browse-${n}` })
          .first()
          .waitFor()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload' }).click()
      for (const n of [1, 2, 3]) await expectOutcome(page, `browse-${n}.obj`, `New model browse-${n}`)
      await page.getByText('3 of 3 files done').waitFor()

      // Signing out forgets the queue: the next user of this browser starts with an empty one.
      await page
        .getByRole('button', { name: /root|admin/ })
        .first()
        .click()
      await page.getByRole('menuitem', { name: 'Sign out' }).click()
      await signIn(page, admin)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload' }).click()
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      expect(await page.getByRole('list', { name: 'Uploads' }).count()).toBe(0)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
