import { readFile } from 'node:fs/promises'
import { strToU8, zipSync } from 'fflate'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { prusaBinaryGcode } from '../support/binary-gcode.js'
import { launchChromium } from '../support/browser.js'
import { type BuiltVault, startBuiltVault } from '../support/built-vault.js'
import { slicedExport, slicedPlate } from '../support/sliced-3mf.js'
import { sliceShape, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, signIn, waitForViewer } from '../support/web-ui.js'

let vault: BuiltVault
let browser: Browser
let token: string
let sliced: ReturnType<typeof sliceShape>

beforeAll(async () => {
  // The slicer blocks the event loop for seconds: done before any connection to the vault is idle in the pool.
  sliced = sliceShape('cylinder')
  ;[vault, browser] = await Promise.all([startBuiltVault(adminEnv), launchChromium()])
  token = (await apiSignIn(vault.baseUrl, admin)).access_token
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await vault?.close()
})

/** A closed box of `x` × `y` × `z` mm as binary STL (12 triangles), so each axis can be told apart. */
function binaryBox(x: number, y: number, z: number): Uint8Array {
  const v = (i: number, j: number, k: number) => [i * x, j * y, k * z]
  const quads = [
    [v(0, 0, 0), v(0, 1, 0), v(1, 1, 0), v(1, 0, 0)],
    [v(0, 0, 1), v(1, 0, 1), v(1, 1, 1), v(0, 1, 1)],
    [v(0, 0, 0), v(1, 0, 0), v(1, 0, 1), v(0, 0, 1)],
    [v(0, 1, 0), v(0, 1, 1), v(1, 1, 1), v(1, 1, 0)],
    [v(0, 0, 0), v(0, 0, 1), v(0, 1, 1), v(0, 1, 0)],
    [v(1, 0, 0), v(1, 1, 0), v(1, 1, 1), v(1, 0, 1)],
  ]
  const triangles = quads.flatMap(([a, b, c, d]) => [
    [a, b, c],
    [a, c, d],
  ])
  const bytes = new Uint8Array(84 + 50 * triangles.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(80, triangles.length, true)
  for (const [i, triangle] of triangles.entries()) {
    for (const [j, value] of triangle.flat().entries()) view.setFloat32(84 + i * 50 + 12 + j * 4, value ?? 0, true)
  }
  return bytes
}

async function uploadBox(name: string, size: [number, number, number]) {
  const reply = await upload(vault.baseUrl, token, name, binaryBox(...size))
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.model as { id: string; name: string }
}

const getModel = async (id: string) => call(vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })

/** Opens `path` signed in, as a person following a link would. */
async function openSignedIn(path: string) {
  const opened = await openVaultPage(browser, vault.baseUrl, path)
  await opened.page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
  await signIn(opened.page, admin)
  return opened
}

describe('the model page', () => {
  it('shows the model in 3D with its metadata; edits, tags, collections and delete work', async () => {
    const model = await uploadBox('Test-Box.stl', [40, 20, 10])
    const collection = await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Boxes' } })
    expect(collection.status).toBe(201)

    const { page, context, blocked, pageErrors } = await openSignedIn(`/models/${model.id}`)
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

  it('a sliced model shows what its G-code says, turns its 3MF in 3D, and downloads its files', async () => {
    const stl = await upload(vault.baseUrl, token, 'cylinder.stl', sliced.stl)
    expect(stl.status).toBe(201)
    const modelId: string = stl.body.model.id
    const bambuSettings = { printer_model: 'Bambu Lab P1S', layer_height: '0.16', nozzle_diameter: ['0.4'] }
    for (const [name, bytes] of [
      ['cylinder.gcode', sliced.gcode],
      ['cylinder.3mf', sliced.threeMf],
      ['cylinder_0.2mm_PETG_MK4.bgcode', prusaBinaryGcode(['cylinder.stl'])],
      [
        'cylinder_plate_1.gcode.3mf',
        slicedExport([slicedPlate(1, 3129, 9.84, 'cylinder.stl')], [1], { settings: bambuSettings }),
      ],
    ] as const) {
      const reply = await upload(vault.baseUrl, token, name, bytes, { model_id: modelId })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    }

    const { page, context, pageErrors } = await openSignedIn(`/models/${modelId}`)
    try {
      const gcode = page.getByRole('article', { name: 'cylinder.gcode' })
      await gcode.getByText('Print time').waitFor()
      const facts = await gcode.textContent()
      for (const label of ['Slicer', 'PrusaSlicer', 'Filament', 'Layer height', 'Nozzle', 'Objects']) {
        expect(facts).toContain(label)
      }
      // Binary G-code and a sliced 3MF show as print-ready the same way: printer, filament, layer height, time.
      for (const [name, printer, filament, layer, time] of [
        ['cylinder_0.2mm_PETG_MK4.bgcode', 'MK4', 'PETG', '0.2 mm', '1 h 2 min'],
        ['cylinder_plate_1.gcode.3mf', 'Bambu Lab P1S', 'PLA', '0.16 mm', '52 min'],
      ]) {
        const card = page.getByRole('article', { name })
        await card.getByText('Print time').waitFor()
        const shown = await card.textContent()
        for (const expected of ['Printer', printer, 'Filament', filament, 'Layer height', layer, time])
          expect(shown, name).toContain(expected)
        await card.getByRole('button', { name: `Send to printer: ${name}` }).waitFor()
      }

      // The page offers each file's extra actions where the app composes them: sending G-code to a printer.
      await gcode.getByRole('button', { name: 'Send to printer: cylinder.gcode' }).waitFor()
      expect(
        await page
          .getByRole('article', { name: 'cylinder.stl' })
          .getByRole('button', { name: /Send to printer/ })
          .count(),
      ).toBe(0)

      await page.getByRole('textbox', { name: 'File shown in 3D' }).click()
      await page.getByRole('option', { name: 'cylinder.3mf' }).click()
      if ((await waitForViewer(page)) === 'canvas') {
        await page.getByRole('img', { name: '3D view of cylinder.3mf' }).waitFor()
        await expect
          .poll(() => page.getByTestId('model-dimensions').textContent())
          .toMatch(/^Dimensions: [\d.]+ × [\d.]+ × [\d.]+ mm$/)
      }
      await screenshot(page, 'model-page-sliced')

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download cylinder.gcode' }).click(),
      ])
      expect(download.suggestedFilename()).toBe('cylinder.gcode')
      const path = await download.path()
      expect((await readFile(path)).equals(sliced.gcode)).toBe(true)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)

  it('a large file shows its download progress before the 3D view', async () => {
    // A 100 × 100 field of 2 mm cubes, 3 mm apart: 120,000 triangles, about 6 MB.
    const cube = binaryBox(2, 2, 2)
    const facets = cube.subarray(84)
    const big = new Uint8Array(84 + facets.length * 10_000)
    const view = new DataView(big.buffer)
    view.setUint32(80, 120_000, true)
    for (let n = 0; n < 10_000; n++) {
      const at = 84 + n * facets.length
      big.set(facets, at)
      for (let t = 0; t < 12; t++) {
        for (let v = 0; v < 3; v++) {
          const x = at + t * 50 + 12 + v * 12
          view.setFloat32(x, view.getFloat32(x, true) + (n % 100) * 3, true)
          view.setFloat32(x + 4, view.getFloat32(x + 4, true) + Math.floor(n / 100) * 3, true)
        }
      }
    }
    const reply = await upload(vault.baseUrl, token, 'Big.stl', big)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)

    const { page, context, pageErrors } = await openSignedIn('/')
    try {
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      // A slow line (2 MB/s), so the download takes a few seconds.
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: 2_000_000,
        uploadThroughput: -1,
      })
      await page.goto(`${vault.baseUrl}/models/${reply.body.model.id}`)
      const progress = page.getByRole('progressbar', { name: 'Downloading Big.stl' })
      await progress.waitFor()
      await page.getByText(/of 6\.00 MB \(\d+%\)/).waitFor()
      await screenshot(page, 'model-page-downloading')
      await expectAccessible(page)
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      })
      if ((await waitForViewer(page)) === 'canvas') {
        await expect.poll(() => page.getByTestId('model-dimensions').textContent()).toBe('Dimensions: 299 × 299 × 2 mm')
      }
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)

  it('a 3MF drawn in inches shows its true size in millimetres, in the 3D view as in its figures', async () => {
    // A 1 × 2 × 0.5 inch box: 25.4 × 50.8 × 12.7 mm. three.js's loader alone would show 1 × 2 × 0.5.
    const [x, y, z] = [1, 2, 0.5]
    const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [(i & 1) * x, ((i >> 1) & 1) * y, ((i >> 2) & 1) * z])
    const faces = [
      [0, 2, 3],
      [0, 3, 1],
      [4, 5, 7],
      [4, 7, 6],
      [0, 1, 5],
      [0, 5, 4],
      [2, 6, 7],
      [2, 7, 3],
      [0, 4, 6],
      [0, 6, 2],
      [1, 3, 7],
      [1, 7, 5],
    ]
    const modelXml = `<?xml version="1.0" encoding="UTF-8"?>
<model unit="inch" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
<resources><object id="1" type="model"><mesh><vertices>${corners.map(([a, b, c]) => `<vertex x="${a}" y="${b}" z="${c}"/>`).join('')}</vertices>
<triangles>${faces.map(([a, b, c]) => `<triangle v1="${a}" v2="${b}" v3="${c}"/>`).join('')}</triangles></mesh></object></resources>
<build><item objectid="1"/></build>
</model>`
    const threeMf = zipSync({
      '[Content_Types].xml': strToU8(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
      ),
      '_rels/.rels': strToU8(
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
      ),
      '3D/3dmodel.model': strToU8(modelXml),
    })
    const reply = await upload(vault.baseUrl, token, 'Inch-Box.3mf', threeMf)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)

    const { page, context, pageErrors } = await openSignedIn(`/models/${reply.body.model.id}`)
    try {
      const file = page.getByRole('article', { name: 'Inch-Box.3mf' })
      await file.getByText('Triangles').waitFor()
      expect(await file.textContent()).toContain('25.4 × 50.8 × 12.7 mm')
      if ((await waitForViewer(page)) === 'canvas') {
        await expect
          .poll(() => page.getByTestId('model-dimensions').textContent())
          .toBe('Dimensions: 25.4 × 50.8 × 12.7 mm')
      }
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)

  it('a file the 3D view cannot read says so, and the rest of the page works', async () => {
    const reply = await upload(vault.baseUrl, token, 'Broken.stl', 'solid broken\nthis is not a mesh\nendsolid\n')
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const { page, context, pageErrors } = await openSignedIn(`/models/${reply.body.model.id}`)
    try {
      await page.getByRole('heading', { name: 'Broken', level: 1 }).waitFor()
      await page.getByRole('alert').filter({ hasText: 'No 3D view' }).waitFor()
      expect(await page.getByRole('alert').filter({ hasText: 'No 3D view' }).textContent()).toContain(
        'This STL file could not be read for the 3D view: it may be damaged, or not really an STL file.',
      )
      await page.getByRole('button', { name: 'Download Broken.stl' }).waitFor()
      await screenshot(page, 'model-unreadable-file')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('"Open in slicer" hands the slicer a signed link that serves the file without signing in', async () => {
    const bytes = binaryBox(30, 20, 10)
    const reply = await upload(vault.baseUrl, token, 'Slicer-Box.stl', bytes)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const { page, context, pageErrors } = await openSignedIn(`/models/${reply.body.model.id}`)
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: vault.baseUrl })
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
      expect(fileUrl.startsWith(`${vault.baseUrl}/api/v1/signed/files/`)).toBe(true)
      expect(fileUrl.endsWith('/Slicer-Box.stl')).toBe(true)
      expect(fileUrl).not.toContain(token)
      // Fetched as a slicer would: no session, no bearer token.
      const served = await fetch(fileUrl)
      expect(served.status).toBe(200)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes)

      // Chromium now holds the tab behind its "Open OrcaSlicer?" prompt, which headless Chromium
      // never answers (the page gets no more input): a second tab of the same session goes on.
      const second = await context.newPage()
      await second.goto(`${vault.baseUrl}/models/${reply.body.model.id}`)
      const secondCard = second.getByRole('article', { name: 'Slicer-Box.stl' })
      await secondCard.getByRole('button', { name: 'Open in slicer: Slicer-Box.stl' }).click()
      await second.getByRole('menuitem', { name: 'Copy download link' }).click()
      await second.getByText('Download link copied').waitFor()
      const copied = await second.evaluate(() => navigator.clipboard.readText())
      expect(copied.startsWith(`${vault.baseUrl}/api/v1/signed/files/`)).toBe(true)
      expect(new Uint8Array(await (await fetch(copied)).arrayBuffer())).toEqual(bytes)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('three.js and the SPDX license list are not part of the library page: they load with the model page only', async () => {
    const { page, context } = await openSignedIn('/library')
    try {
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      const scripts = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((entry) => entry.name)
          .filter((name) => name.endsWith('.js')),
      )
      expect(scripts.length).toBeGreaterThan(0)
      for (const script of scripts) {
        const code = await (await fetch(script)).text()
        expect(code).not.toContain('WebGLRenderer')
        expect(code).not.toContain('Creative Commons Attribution Share Alike 4.0 International')
      }
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
      const reply = await upload(vault.baseUrl, token, name, binaryBox(size[0], size[1], size[2]), {
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
    await call(vault.baseUrl, 'PATCH', `/api/v1/models/${top.id}`, { token, json: { description } })

    const { page, context, pageErrors } = await openSignedIn(`/models/${top.id}`)
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
    const arm = await upload(vault.baseUrl, token, 'Robot arm.stl', binaryBox(42, 21, 11), { model_id: robot.id })
    expect(arm.status).toBe(201)
    const stand = await upload(vault.baseUrl, token, 'Stand.stl', binaryBox(43, 21, 11), { model_name: 'Robot stand' })
    const filesOf = async (id: string) =>
      ((await getModel(id)).body.files as { name: string }[]).map((file) => file.name).sort()

    const { page, context, pageErrors } = await openSignedIn(`/models/${robot.id}`)
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
      const arms = await call(vault.baseUrl, 'GET', '/api/v1/models?q=Robot%20arm', { token })
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
    const { page, context, pageErrors } = await openSignedIn('/models/no-such-model')
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
