import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin } from '../support/accounts.js'
import { cubeField } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()
let files: string

beforeAll(async () => {
  files = await mkdtemp(join(tmpdir(), 'vault-upload-progress-e2e-'))
})

afterAll(() => rm(files, { recursive: true, force: true }))

/** Writes a mesh of `cubes` cubes (600 bytes each) and picks it through the Upload page's file chooser. */
async function chooseMesh(page: Page, name: string, cubes: number): Promise<void> {
  const path = join(files, name)
  await writeFile(path, cubeField(cubes))
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: 'Choose files' }).click()
  await (await chooser).setFiles(path)
}

const row = (page: Page, label: string) =>
  page.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name: label })

describe('an upload’s progress', () => {
  it('says the vault is processing a file once its bytes are sent, and counts a cancelled file as cancelled, not sent', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      // A slow line (1 MB/s up) whose answers come late: the vault's answer arrives well after the last byte left.
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 1500,
        downloadThroughput: 2000,
        uploadThroughput: 1_000_000,
      })

      await chooseMesh(page, 'big.stl', 5000)
      await row(page, 'big.stl').getByText('Sending').waitFor()
      await row(page, 'big.stl').getByText('Processing…').waitFor({ timeout: 15_000 })
      // No value while processing: an indeterminate bar, not a 100 % that is not done.
      // Past cancelling: the vault has every byte and keeps the file, so no Cancel is offered.
      expect(await page.getByRole('button', { name: 'Cancel big.stl' }).count()).toBe(0)
      const bar = row(page, 'big.stl').getByRole('progressbar', { name: 'Upload of big.stl' })
      expect(await bar.getAttribute('aria-valuenow')).toBeNull()
      expect(await row(page, 'big.stl').textContent()).toContain('3.00 MB of 3.00 MB sent')
      await page.getByText('0 of 1 files done · 1 processing · 3.00 MB of 3.00 MB sent').waitFor()
      await page.getByRole('link', { name: 'Uploads: 0 of 1 files uploaded, 1 processing, 100% sent' }).waitFor()
      await screenshot(page, 'upload-processing')
      await expectAccessible(page)
      await row(page, 'big.stl').getByText('New model big').waitFor({ timeout: 30_000 })
      expect(await row(page, 'big.stl').getByText('Processing…').count()).toBe(0)

      // Cancelled part-way: shown and counted as cancelled, and its bytes count for nothing.
      await chooseMesh(page, 'part-way.stl', 5001)
      const sending = row(page, 'part-way.stl').getByRole('progressbar', { name: 'Upload of part-way.stl' })
      await expect
        .poll(async () => Number(await sending.getAttribute('aria-valuenow')), { timeout: 15_000 })
        .toBeGreaterThan(0)
      await page.getByRole('button', { name: 'Cancel part-way.stl' }).click()
      await row(page, 'part-way.stl').getByText('Cancelled').waitFor()
      await page.getByText('1 of 2 files done · 1 cancelled · 3.00 MB of 3.00 MB sent').waitFor()
      await page.getByText('0 refused · 0 failed · 1 cancelled').waitFor()
      expect(await page.getByRole('progressbar', { name: 'All uploads' }).getAttribute('aria-valuenow')).toBe('100')
      await screenshot(page, 'upload-cancelled')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('tells a failed upload (the connection broke, the vault answered 5xx) from one the vault refused', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/upload')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Upload', level: 1 }).waitFor()
      const outcomes = ['broken', 'unavailable', 'refused']
      await page.route('**/api/v1/ingest', async (route) => {
        const outcome = outcomes.shift()
        if (outcome === 'broken') return route.abort('connectionreset')
        const [status, code, detail] =
          outcome === 'unavailable'
            ? [503, 'restore_in_progress', 'A restore is running; uploads wait until it is done.']
            : [413, 'payload_too_large', 'The upload is larger than this vault takes.']
        return route.fulfill({
          status,
          contentType: 'application/problem+json',
          body: JSON.stringify({ type: 'about:blank', title: 'Problem', status, code, detail }),
        })
      })
      await chooseMesh(page, 'first.stl', 3)
      await row(page, 'first.stl').getByText('Failed: The connection to the vault broke.').waitFor()
      await chooseMesh(page, 'second.stl', 4)
      await row(page, 'second.stl').getByText('Failed: A restore is running; uploads wait until it is done.').waitFor()
      await chooseMesh(page, 'third.stl', 5)
      await row(page, 'third.stl').getByText('Refused: The upload is larger than this vault takes.').waitFor()
      await page.getByText('0 of 3 files done · 1 refused · 2 failed').waitFor()
      await page.getByText('1 refused · 2 failed · 0 cancelled').waitFor()
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
