import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, signIn as apiSignIn, call } from '../support/accounts.js'
import { pngOf, zlibZeros } from '../support/png-chunks.js'
import { sphereStl } from '../support/sphere-mesh.js'
import { upload } from '../support/uploads.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite } from '../support/web-ui.js'

// The service the browser talks to renders nothing, so what the uploads queue waits until the test
// starts a second process of the install that renders (as a replica with VAULT_ANALYSIS_WORKERS=0
// leaves the rendering to another).
const suite = setUpBrowserSuite({ ...adminEnv, VAULT_ANALYSIS_WORKERS: '0' })
let token: string
beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

/** Meshes big enough that rendering their thumbnails and previews takes the queue several seconds. */
const meshes = 6
/** A PNG over 512 KiB (so it is scaled in the background) whose image data inflates past what its size allows. */
const bomb = pngOf(1000, 1000, zlibZeros(8), 600 * 1024)
const bombSha256 = createHash('sha256').update(bomb).digest('hex')

const analysisFailure = async () =>
  (await call(suite.vault.baseUrl, 'GET', '/api/v1/analysis', { token })).body.failures.find(
    (failure: { sha256: string }) => failure.sha256 === bombSha256,
  ) as { failed_at: string } | undefined

describe('the background analysis', () => {
  it('shows the files waiting and their thumbnails once rendered, without a reload; a failure is retried from the analysis page', async () => {
    const { page, context, pageErrors } = await openSignedIn(suite.browser, suite.vault.baseUrl, '/')
    try {
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      // All at once: readings for uploads go before the background analysis, which starts as they end.
      const replies = await Promise.all([
        upload(suite.vault.baseUrl, token, 'bomb.png', bomb),
        ...Array.from({ length: meshes }, async (_, n) =>
          upload(suite.vault.baseUrl, token, `Globe ${n + 1}.stl`, await sphereStl(200, 300, 31 + n)),
        ),
      ])
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(201)

      // Opened anew (the session carries over): the library as it is now.
      await page.goto(`${suite.vault.baseUrl}/library`)
      const main = page.getByRole('main')
      const globes = main.getByRole('link', { name: /^Globe \d/ })
      await globes.first().waitFor()
      // The header says what is left, on every page; the cards still waiting say so in place of the thumbnail.
      const indicator = page.getByRole('banner').getByRole('link', { name: /^Rendering thumbnails: \d+ files? left/ })
      await indicator.waitFor()
      await main.getByText('Analysing…').first().waitFor()
      // The most recent upload, first in the list, is about the last the queue takes up.
      const waiting = main.getByRole('link', { name: /^Globe \d.* · thumbnail being rendered$/ }).first()
      await waiting.waitFor()
      await screenshot(page, 'library-analysing')
      await expectAccessible(page)

      // Its model page, in another tab, says its files are being rendered, until they are.
      const modelTab = await context.newPage()
      const name = (await waiting.textContent())?.match(/Globe \d/)?.[0]
      await modelTab.goto(new URL(`.${await waiting.getAttribute('href')}`, `${suite.vault.baseUrl}/`).href)
      const notice = modelTab.getByText('Rendering thumbnails and previews for 1 file…')
      await notice.waitFor()
      await screenshot(modelTab, 'model-page-analysing')

      // The list view says it too, with a name for the picture.
      await page.getByText('List', { exact: true }).click()
      await main.getByRole('img', { name: 'Analysing: the thumbnail is being rendered' }).first().waitFor()
      await screenshot(page, 'library-list-analysing')

      // Rendered in the background; the list is asked again meanwhile, so the thumbnails appear without a reload.
      await suite.vault.replica({ ...adminEnv, VAULT_ANALYSIS_WORKERS: '1' })
      await expect.poll(() => main.locator('img[src^="blob:"]').count(), { timeout: 30_000 }).toBe(meshes)
      expect(await main.getByRole('img', { name: /^Analysing/ }).count()).toBe(0)
      // And the model page, without a reload either.
      await modelTab.getByRole('img', { name: `Cover of ${name}` }).waitFor()
      await notice.waitFor({ state: 'hidden' })
      await modelTab.close()
      await indicator.waitFor({ state: 'hidden' })
      // What is left is the failure, which the header leads to.
      const failed = page.getByRole('banner').getByRole('link', { name: '1 file could not be analysed' })
      await failed.waitFor({ timeout: 30_000 })
      await screenshot(page, 'library-analysed')
      await failed.click()
      await page.waitForURL(/\/settings\/analysis$/)

      await page.getByRole('heading', { name: 'Analysis', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: 'Failed analyses' })
      const row = table.getByRole('row').filter({ hasText: 'bomb.png' })
      await row.waitFor()
      await expect.poll(() => row.textContent()).toMatch(/inflates to more than/)
      const bombModel = (await call(suite.vault.baseUrl, 'GET', '/api/v1/models?q=bomb', { token })).body.items[0]
      expect(await row.getByRole('link', { name: 'bomb.png' }).getAttribute('href')).toBe(`/models/${bombModel.id}`)
      await page.getByRole('region', { name: 'Queue' }).getByText('Rendering now').waitFor()
      await screenshot(page, 'analysis-failures')
      await expectAccessible(page)

      const before = await analysisFailure()
      const retried = page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/api/v1/analysis/retry' && response.ok(),
      )
      await row.getByRole('button', { name: 'Retry bomb.png' }).click()
      const answer = await retried
      expect(answer.request().postDataJSON()).toEqual({ sha256: bombSha256 })
      expect(await answer.json()).toEqual({ retried: 1 })
      await page.getByText('1 file queued again.').waitFor()
      // Taken up again, it fails again: the row is back, with a later time of failure.
      await expect
        .poll(async () => (await analysisFailure())?.failed_at, { timeout: 15_000 })
        .not.toBe(before?.failed_at)
      await row.waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 60_000)
})
