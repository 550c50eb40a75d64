import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { binaryBox, upload } from '../support/uploads.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite, waitForViewer } from '../support/web-ui.js'

const suite = setUpBrowserSuite(adminEnv)
let token: string
beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})
const open = (path: string) => openSignedIn(suite.browser, suite.vault.baseUrl, path)

async function uploadBox(name: string, size: [number, number, number]) {
  const reply = await upload(suite.vault.baseUrl, token, name, binaryBox(...size))
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.model as { id: string; name: string }
}

const getModel = async (id: string) => call(suite.vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })

describe('the model page', () => {
  it('shows the model in 3D with its metadata; edits, tags, collections and delete work', async () => {
    const model = await uploadBox('Test-Box.stl', [40, 20, 10])
    const collection = await call(suite.vault.baseUrl, 'POST', '/api/v1/collections', {
      token,
      json: { name: 'Boxes' },
    })
    expect(collection.status).toBe(201)

    const { page, context, blocked, pageErrors } = await open(`/models/${model.id}`)
    try {
      await page.getByRole('heading', { name: 'Test-Box', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe(`/models/${model.id}`)

      // What the vault read from the file.
      const file = page.getByRole('article', { name: 'Test-Box.stl' })
      await file.getByText('Triangles').waitFor()
      expect(await file.textContent()).toContain('40 × 20 × 10 mm')
      expect(await file.textContent()).toContain('12')
      await page.getByRole('img', { name: 'Cover of Test-Box' }).waitFor()

      if ((await waitForViewer(page)) === 'canvas') {
        const canvas = page.getByRole('img', { name: '3D view of Test-Box.stl' })
        expect(await canvas.evaluate((element: HTMLCanvasElement) => element.getContext('webgl2') !== null)).toBe(true)
        await expect.poll(() => page.getByTestId('model-dimensions').textContent()).toBe('Dimensions: 40 × 20 × 10 mm')
        // Fit brings back the framed view after zooming in.
        const framed = await canvas.screenshot({ path: 'test-results/screenshots/model-3d-framed.png' })
        await page.getByRole('button', { name: 'Zoom in' }).click()
        await page.getByRole('button', { name: 'Zoom in' }).click()
        await page.mouse.move(0, 0)
        const zoomed = await canvas.screenshot({ path: 'test-results/screenshots/model-3d-zoomed.png' })
        expect(zoomed.equals(framed)).toBe(false)
        await page.getByRole('button', { name: 'Fit to view' }).click()
        // Away from the buttons, so no tooltip covers the view.
        await page.mouse.move(0, 0)
        await expect.poll(async () => (await canvas.screenshot()).equals(framed)).toBe(true)
      } else {
        await page.getByText('This browser cannot show the 3D view').waitFor()
      }
      await screenshot(page, 'model-page')
      await expectAccessible(page)

      // The name, edited inline, stays after a reload.
      await page.getByRole('button', { name: 'Edit name' }).click()
      await page.getByLabel('Name').fill('Renamed Box')
      await page.getByRole('button', { name: 'Save name' }).click()
      await page.getByRole('heading', { name: 'Renamed Box', level: 1 }).waitFor()

      // A tag: typed and Enter, saved at once.
      const tags = page.getByRole('textbox', { name: 'Tags' })
      await tags.fill('calibration')
      await tags.press('Enter')
      await expect.poll(async () => (await getModel(model.id)).body.tags).toEqual(['calibration'])

      // Into a collection.
      await page.getByRole('textbox', { name: 'Collections' }).click()
      await page.getByRole('option', { name: 'Boxes' }).click()
      await expect
        .poll(async () => (await getModel(model.id)).body.collections.map((c: { name: string }) => c.name))
        .toEqual(['Boxes'])
      await page.keyboard.press('Escape')

      await page.reload()
      await page.getByRole('heading', { name: 'Renamed Box', level: 1 }).waitFor()
      await page.getByText('calibration').first().waitFor()
      await page.getByText('Boxes').first().waitFor()
      await screenshot(page, 'model-page-edited')

      await page.emulateMedia({ colorScheme: 'dark' })
      await waitForViewer(page)
      await screenshot(page, 'model-page-dark')
      await page.emulateMedia({ colorScheme: 'light' })

      await page.setViewportSize({ width: 390, height: 844 })
      await waitForViewer(page)
      await screenshot(page, 'model-page-narrow')
      await expectAccessible(page)
      await page.setViewportSize({ width: 1280, height: 900 })

      // Delete asks first, then lands on the library.
      await page.getByRole('button', { name: 'Delete model' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete this model?' })
      await dialog.getByText('“Renamed Box” and its file will be deleted').waitFor()
      await screenshot(page, 'model-delete-confirmation')
      await dialog.getByRole('button', { name: 'Delete' }).click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/library')
      expect((await getModel(model.id)).status).toBe(404)

      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 180_000)

  it('"Open in slicer" hands the slicer a signed link that serves the file without signing in', async () => {
    const bytes = binaryBox(30, 20, 10)
    const reply = await upload(suite.vault.baseUrl, token, 'Slicer-Box.stl', bytes)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const { page, context, pageErrors } = await open(`/models/${reply.body.model.id}`)
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.vault.baseUrl })
      const card = page.getByRole('article', { name: 'Slicer-Box.stl' })
      await card.getByRole('button', { name: 'Open in slicer: Slicer-Box.stl' }).click()
      const menu = page.getByRole('menu')
      await menu.getByRole('menuitem', { name: 'OrcaSlicer' }).waitFor()
      // Bambu Studio opens only 3MF from a link; PrusaSlicer only its own sites, which the menu says.
      expect(await menu.getByRole('menuitem', { name: 'Bambu Studio' }).count()).toBe(0)
      const prusa = menu.getByRole('menuitem', { name: /PrusaSlicer/ })
      expect(await prusa.isDisabled()).toBe(true)
      expect(await prusa.textContent()).toContain('printables.com')
      await screenshot(page, 'model-open-in-slicer')
      await expectAccessible(page)

      // The slicer's URL is a navigation the browser hands to the operating system: caught as a request.
      const [navigation] = await Promise.all([
        page.waitForRequest((request) => request.url().startsWith('orcaslicer://')),
        menu.getByRole('menuitem', { name: 'OrcaSlicer' }).click(),
      ])
      const slicerUrl = navigation.url()
      expect(slicerUrl).toMatch(/^orcaslicer:\/\/open\?file=[^&]+$/)
      const fileUrl = decodeURIComponent(slicerUrl.slice('orcaslicer://open?file='.length))
      expect(fileUrl.startsWith(`${suite.vault.baseUrl}/api/v1/signed/files/`)).toBe(true)
      expect(fileUrl.endsWith('/Slicer-Box.stl')).toBe(true)
      expect(fileUrl).not.toContain(token)
      // Fetched as a slicer would: no session, no bearer token.
      const served = await fetch(fileUrl)
      expect(served.status).toBe(200)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)

      // Chromium now holds the tab behind its "Open OrcaSlicer?" prompt, which headless Chromium
      // never answers (the page gets no more input): a second tab of the same session goes on.
      const second = await context.newPage()
      await second.goto(`${suite.vault.baseUrl}/models/${reply.body.model.id}`)
      const secondCard = second.getByRole('article', { name: 'Slicer-Box.stl' })
      await secondCard.getByRole('button', { name: 'Open in slicer: Slicer-Box.stl' }).click()
      await second.getByRole('menuitem', { name: 'Copy download link' }).click()
      await second.getByText('Download link copied').waitFor()
      const copied = await second.evaluate(() => navigator.clipboard.readText())
      expect(copied.startsWith(`${suite.vault.baseUrl}/api/v1/signed/files/`)).toBe(true)
      expect(new Uint8Array(await (await fetch(copied)).arrayBuffer())).toEqual(bytes)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it("shows the files by folder, renders the description's Markdown inert, and edits designer, source and license", async () => {
    const top = await uploadBox('Dragon body.stl', [31, 17, 9])
    for (const [name, folder, size] of [
      ['Wing.stl', 'stls/supported', [32, 18, 9]],
      ['Wing.stl', 'stls/unsupported', [33, 18, 9]],
    ] as const) {
      const reply = await upload(suite.vault.baseUrl, token, name, binaryBox(size[0], size[1], size[2]), {
        model_id: top.id,
        folder,
      })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    }
    const description = [
      '# Print notes',
      '',
      'Print **flat**, see [the page](https://www.printables.com/model/1) and [bad](javascript:alert(1)).',
      '',
      '<script>window.__injected = true</script><img src=x onerror="window.__injected = true">',
    ].join('\n')
    await call(suite.vault.baseUrl, 'PATCH', `/api/v1/models/${top.id}`, { token, json: { description } })

    const { page, context, pageErrors } = await open(`/models/${top.id}`)
    try {
      await page.getByRole('heading', { name: 'Dragon body', level: 1 }).waitFor()
      // Markdown renders; HTML and javascript: links stay inert.
      await page.getByRole('heading', { name: 'Print notes' }).waitFor()
      expect(await page.locator('strong', { hasText: 'flat' }).count()).toBe(1)
      const link = page.getByRole('link', { name: 'the page' })
      expect(await link.getAttribute('href')).toBe('https://www.printables.com/model/1')
      expect(await link.getAttribute('rel')).toContain('noopener')
      expect(await page.getByRole('link', { name: 'bad' }).getAttribute('href')).not.toMatch(/javascript/i)
      expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined()
      expect(await page.locator('main script, main img[src="x"]').count()).toBe(0)

      // Two files of one name, each in its folder.
      for (const folder of ['stls/supported', 'stls/unsupported']) {
        const section = page.getByRole('region', { name: `Folder ${folder}` })
        await section.getByRole('article', { name: 'Wing.stl' }).waitFor()
      }
      await page.getByRole('region', { name: 'Top folder' }).getByRole('article', { name: 'Dragon body.stl' }).waitFor()

      await page.getByRole('button', { name: 'Edit designer' }).click()
      await page.getByRole('textbox', { name: 'Designer' }).fill('McGybeer')
      await page.getByRole('button', { name: 'Save designer' }).click()
      await page.getByText('By McGybeer').waitFor()
      await page.getByRole('button', { name: 'Edit source' }).click()
      await page.getByRole('textbox', { name: 'Source' }).fill('javascript:alert(1)')
      await page.getByRole('button', { name: 'Save source' }).click()
      await page.getByText(/source_url/i).waitFor()
      await page.getByRole('textbox', { name: 'Source' }).fill('https://www.printables.com/model/1')
      await page.getByRole('button', { name: 'Save source' }).click()
      await page.getByRole('link', { name: 'https://www.printables.com/model/1' }).waitFor()
      await page.getByRole('button', { name: 'Edit license' }).click()
      await page.getByRole('textbox', { name: 'License' }).fill('CC-BY-NC-4.0')
      await page.getByRole('button', { name: 'Save license' }).click()
      // An SPDX identifier shows as its name, linked to its SPDX page.
      const license = page.getByRole('link', { name: 'Creative Commons Attribution Non Commercial 4.0 International' })
      expect(await license.getAttribute('href')).toBe('https://spdx.org/licenses/CC-BY-NC-4.0.html')
      await screenshot(page, 'model-folders-and-maker')
      await expectAccessible(page)
      expect((await getModel(top.id)).body).toMatchObject({
        creator: 'McGybeer',
        source_url: 'https://www.printables.com/model/1',
        license: 'CC-BY-NC-4.0',
      })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('moves files to a new model, merges it back and copies a file to another model, from the model page', async () => {
    const robot = await uploadBox('Robot body.stl', [41, 21, 11])
    const arm = await upload(suite.vault.baseUrl, token, 'Robot arm.stl', binaryBox(42, 21, 11), { model_id: robot.id })
    expect(arm.status).toBe(201)
    const stand = await upload(suite.vault.baseUrl, token, 'Stand.stl', binaryBox(43, 21, 11), {
      model_name: 'Robot stand',
    })
    const filesOf = async (id: string) =>
      ((await getModel(id)).body.files as { name: string }[]).map((file) => file.name).sort()

    const { page, context, pageErrors } = await open(`/models/${robot.id}`)
    try {
      await page.getByRole('heading', { name: 'Robot body', level: 1 }).waitFor()
      // Split: the arm goes to a new model.
      await page.getByRole('button', { name: 'Move or copy files' }).click()
      const dialog = page.getByRole('dialog', { name: 'Move or copy files' })
      await dialog.getByRole('checkbox', { name: 'Robot arm.stl' }).check()
      await dialog.getByRole('textbox', { name: "New model's name" }).fill('Robot arm')
      await screenshot(page, 'model-move-files')
      await dialog.getByRole('button', { name: 'Move 1 file' }).click()
      await page.getByText('Moved 1 file to “Robot arm”.').waitFor()
      expect(await filesOf(robot.id)).toEqual(['Robot body.stl'])
      await page.getByRole('article', { name: 'Robot arm.stl' }).waitFor({ state: 'detached' })

      // Merge it back.
      await page.getByRole('button', { name: 'Merge models in' }).click()
      const merge = page.getByRole('dialog', { name: 'Merge models into “Robot body”' })
      await merge.getByRole('textbox', { name: 'Models to merge in' }).fill('Robot arm')
      await page.getByRole('option', { name: 'Robot arm' }).click()
      // The list stays open for more choices until a click outside it (here the dialog's title above it).
      await merge.getByRole('heading', { name: /Merge models into/ }).click()
      await screenshot(page, 'model-merge-models')
      await merge.getByRole('button', { name: 'Merge 1 model' }).click()
      await page.getByRole('article', { name: 'Robot arm.stl' }).waitFor()
      expect(await filesOf(robot.id)).toEqual(['Robot arm.stl', 'Robot body.stl'])
      const arms = await call(suite.vault.baseUrl, 'GET', '/api/v1/models?q=Robot%20arm', { token })
      expect((arms.body.items as { name: string }[]).map((item) => item.name)).not.toContain('Robot arm')

      // Copy the body to the stand: it stays here too.
      await page.getByRole('button', { name: 'Move or copy files' }).click()
      await dialog.getByRole('checkbox', { name: 'Robot body.stl' }).check()
      await dialog.getByText('Copy to a model').click()
      await dialog.getByRole('textbox', { name: 'To model' }).fill('Robot stand')
      await page.getByRole('option', { name: 'Robot stand' }).click()
      await dialog.getByRole('button', { name: 'Copy 1 file' }).click()
      await page.getByText('Copied 1 file to “Robot stand”.').waitFor()
      expect(await filesOf(stand.body.model.id)).toEqual(['Robot body.stl', 'Stand.stl'])
      expect(await filesOf(robot.id)).toEqual(['Robot arm.stl', 'Robot body.stl'])
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('a model that does not exist says so, with a way back', async () => {
    const { page, context, pageErrors } = await open('/models/no-such-model')
    try {
      await page.getByRole('heading', { name: 'Model not found', level: 1 }).waitFor()
      await page.getByText('There is no model with this address.').waitFor()
      await page.getByRole('link', { name: 'Back to the library' }).waitFor()
      await screenshot(page, 'model-not-found')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
