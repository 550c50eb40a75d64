import { readFile } from 'node:fs/promises'
import { strToU8, zipSync } from 'fflate'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn } from '../support/accounts.js'
import { prusaBinaryGcode } from '../support/binary-gcode.js'
import { slicedExport, slicedPlate } from '../support/sliced-3mf.js'
import { binaryBox, sliceShape, upload } from '../support/uploads.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite, waitForViewer } from '../support/web-ui.js'

let sliced: ReturnType<typeof sliceShape>
// The slicer blocks the event loop for seconds: done before the vault starts, so no connection to it sits idle meanwhile.
beforeAll(() => {
  sliced = sliceShape('cylinder')
}, 120_000)
const suite = setUpBrowserSuite(adminEnv)
let token: string
beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})
const open = (path: string) => openSignedIn(suite.browser, suite.vault.baseUrl, path)

describe("the model page's files: what they say, in 3D and in figures", () => {
  it('a sliced model shows what its G-code says, turns its 3MF in 3D, and downloads its files', async () => {
    const stl = await upload(suite.vault.baseUrl, token, 'cylinder.stl', sliced.stl)
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
      const reply = await upload(suite.vault.baseUrl, token, name, bytes, { model_id: modelId })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    }

    const { page, context, pageErrors } = await open(`/models/${modelId}`)
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
    const reply = await upload(suite.vault.baseUrl, token, 'Big.stl', big)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)

    const { page, context, pageErrors } = await open('/')
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
      await page.goto(`${suite.vault.baseUrl}/models/${reply.body.model.id}`)
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
    const reply = await upload(suite.vault.baseUrl, token, 'Inch-Box.3mf', threeMf)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)

    const { page, context, pageErrors } = await open(`/models/${reply.body.model.id}`)
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
    const reply = await upload(suite.vault.baseUrl, token, 'Broken.stl', 'solid broken\nthis is not a mesh\nendsolid\n')
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const { page, context, pageErrors } = await open(`/models/${reply.body.model.id}`)
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

  it('three.js and the SPDX license list are not part of the library page: they load with the model page only', async () => {
    const { page, context } = await open('/library')
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
})
