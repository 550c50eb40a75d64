import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { sphereStl } from '../support/sphere-mesh.js'
import { cubeField, upload } from '../support/uploads.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite, waitForViewer } from '../support/web-ui.js'

const suite = setUpBrowserSuite(adminEnv)
let token: string
beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

const open = (path: string) => openSignedIn(suite.browser, suite.vault.baseUrl, path)

describe('a large mesh on its model page', () => {
  const isFilePart = (part: 'content' | 'preview', url: string) =>
    new RegExp(`^/api/v1/files/[^/]+/${part}$`).test(new URL(url).pathname)

  it('a mesh of 240,000 triangles shows its preview first, and the whole file only when asked', async () => {
    const reply = await upload(suite.vault.baseUrl, token, 'Globe.stl', await sphereStl(300, 400, 40))
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)

    const { page, context, pageErrors } = await open(`/models/${reply.body.model.id}`)
    try {
      const requested: string[] = []
      page.on('request', (request) => requested.push(request.url()))
      await page.getByRole('heading', { name: 'Globe', level: 1 }).waitFor()
      // The preview is rendered in the background after the upload: the page waits for it (asking
      // again meanwhile), without fetching the whole file.
      await page.getByText(/^A preview: [\d,]+ of 240,000 triangles\.$/).waitFor({ timeout: 30_000 })
      await page.getByText(/^Rendering thumbnails and previews/).waitFor({ state: 'hidden' })
      const file = (await call(suite.vault.baseUrl, 'GET', `/api/v1/files/${reply.body.file.id}`, { token })).body
      expect(file.preview_triangles).toBeGreaterThan(0)
      const triangles = new Intl.NumberFormat('en-US').format(file.preview_triangles)
      await page.getByText(`A preview: ${triangles} of 240,000 triangles.`).waitFor()
      const full = page.getByRole('button', { name: 'Load full detail (12.0 MB)' })
      await full.waitFor()
      if ((await waitForViewer(page)) === 'canvas') {
        await expect.poll(() => page.getByTestId('model-dimensions').textContent()).toBe('Dimensions: 80 × 80 × 80 mm')
        await screenshot(page, 'model-page-preview-mesh')
      }
      await expectAccessible(page)
      expect(requested.filter((url) => isFilePart('preview', url))).toHaveLength(1)
      expect(requested.filter((url) => isFilePart('content', url))).toEqual([])

      const fetched = page.waitForRequest((request) => isFilePart('content', request.url()))
      await full.click()
      await fetched
      await full.waitFor({ state: 'detached' })
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)

  it('a mesh over 50 MB without a preview shows its thumbnail, and nothing of it is fetched until asked', async () => {
    // Just over the 50 MB threshold: 83,334 cubes of 600 bytes, too many small bodies apart for a faithful preview.
    const huge = cubeField(83_334)
    expect(huge.length).toBeGreaterThan(50_000_000)
    const reply = await upload(suite.vault.baseUrl, token, 'Huge.stl', huge)
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.file.preview_triangles).toBeNull()

    const { page, context, pageErrors } = await open(`/models/${reply.body.model.id}`)
    try {
      const contentRequests: string[] = []
      page.on('request', (request) => {
        if (isFilePart('content', request.url())) contentRequests.push(request.url())
      })
      await page.getByRole('heading', { name: 'Huge', level: 1 }).waitFor()
      const load = page.getByRole('button', { name: 'Load the 3D view (50.0 MB)' })
      await load.waitFor()
      // The mesh's thumbnail stands in for it.
      await page.getByRole('img', { name: 'Huge.stl' }).first().waitFor()
      await screenshot(page, 'model-page-large-mesh')
      await expectAccessible(page)
      expect(contentRequests).toEqual([])

      // Asked for, the file comes (drawing a million triangles is the browser's business, not this test's).
      const fetched = page.waitForRequest((request) => isFilePart('content', request.url()))
      await load.click()
      await fetched
      await page
        .getByRole('progressbar', { name: 'Downloading Huge.stl' })
        .or(page.getByRole('img', { name: /^3D view of / }))
        .first()
        .waitFor()
      expect(contentRequests).toHaveLength(1)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
