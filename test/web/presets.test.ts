import { existsSync, readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, signIn as apiSignIn, call, newAccount } from '../support/accounts.js'
import { expectAccessible, openSignedIn, screenshot, setUpBrowserSuite } from '../support/web-ui.js'

const suite = setUpBrowserSuite()
let token: string

beforeAll(async () => {
  token = (await apiSignIn(suite.vault.baseUrl, admin)).access_token
})

/** A small PrusaSlicer bundle, as PrusaSlicer exports a config bundle. */
const bundle = [
  '[filament:My PLA]',
  'filament_type = PLA',
  'filament_vendor = Test Filaments',
  'filament_colour = #ff0000',
  'filament_diameter = 1.75',
  'filament_density = 1.24',
  'temperature = 210',
  'bed_temperature = 60',
  'filament_cost = 25',
  '',
].join('\n')

const curaPla = '/usr/share/cura/resources/materials/generic_pla_175.xml.fdm_material'

/** Chooses `file` with the import's file button, the way a person picks it in the file dialog. */
async function importFile(page: Page, file: { name: string; text: string }) {
  const chooser = page.waitForEvent('filechooser')
  await page.getByRole('button', { name: 'Choose a file' }).click()
  await (await chooser).setFiles({ name: file.name, mimeType: 'text/plain', buffer: Buffer.from(file.text) })
}

async function openPresets(credentials: { username: string; password: string }) {
  const opened = await openSignedIn(suite.browser, suite.vault.baseUrl, '/presets', credentials)
  await opened.page.getByRole('heading', { name: 'Presets', level: 1 }).waitFor()
  return opened
}

describe('the presets page', () => {
  it('imports a PrusaSlicer bundle, edits a profile, and refuses a file that is not a preset', async () => {
    const { page, context, blocked, pageErrors } = await openPresets(admin)
    try {
      await page.getByText('No filament profiles yet.').waitFor()
      await importFile(page, { name: 'my-filaments.ini', text: bundle })
      const imported = page.getByRole('status').filter({ hasText: 'my-filaments.ini imported' })
      await imported.waitFor()
      expect(await imported.textContent()).toContain('1 created, 0 updated.')
      expect(await imported.textContent()).toContain('My PLA (new)')
      const row = page.getByRole('row').filter({ hasText: 'My PLA' })
      await row.waitFor()
      expect(await row.textContent()).toContain('PLA')
      expect(await row.textContent()).toContain('Test Filaments')
      expect(await row.textContent()).toContain('PrusaSlicer')
      await screenshot(page, 'presets')
      await expectAccessible(page)

      // Open it, change the vendor, save: the list and the API show the change.
      await page.getByRole('button', { name: 'My PLA' }).click()
      const dialog = page.getByRole('dialog', { name: 'My PLA' })
      await dialog.waitFor()
      expect(await dialog.getByLabel('Nozzle temperature (°C)').inputValue()).toBe('210')
      await dialog.getByRole('button', { name: /Imported slicer settings/ }).click()
      await dialog.getByText('filament_cost').waitFor()
      await screenshot(page, 'presets-edit')
      await expectAccessible(page)
      await dialog.getByLabel('Vendor').fill('Acme')
      await dialog.getByRole('button', { name: 'Save' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('row').filter({ hasText: 'Acme' }).waitFor()
      const list = await call(suite.vault.baseUrl, 'GET', '/api/v1/filament-profiles', { token })
      expect(list.body.items).toMatchObject([{ name: 'My PLA', vendor: 'Acme', nozzle_temperature_c: 210 }])

      // A file that is no preset: the vault's reason, next to the import.
      await importFile(page, { name: 'notes.txt', text: 'hello, these are my notes' })
      const refusal = page.getByRole('alert').filter({ hasText: 'notes.txt not imported' })
      await refusal.waitFor()
      expect(await refusal.textContent()).toContain('This is not a PrusaSlicer bundle')
      await screenshot(page, 'presets-refused')
      await expectAccessible(page)

      if (existsSync(curaPla)) {
        await importFile(page, { name: 'generic_pla_175.xml.fdm_material', text: readFileSync(curaPla, 'utf8') })
        await page.getByRole('status').filter({ hasText: 'Generic PLA 1.75mm (new)' }).waitFor()
        await page.getByRole('row').filter({ hasText: 'Generic PLA 1.75mm' }).getByText('Cura').waitFor()
      }

      // Search narrows the list by name.
      await page.getByLabel('Search filament profiles').fill('my p')
      await expect.poll(() => page.getByRole('row').filter({ hasText: 'Generic PLA' }).count()).toBe(0)
      await page.getByRole('row').filter({ hasText: 'My PLA' }).waitFor()

      await page.setViewportSize({ width: 390, height: 844 })
      await screenshot(page, 'presets-phone')
      await expectAccessible(page)
      await page.emulateMedia({ colorScheme: 'dark' })
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.mantineColorScheme)).toBe('dark')
      await screenshot(page, 'presets-phone-dark')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('creates and deletes a printer profile, and a duplicate name is refused next to the name', async () => {
    const { page, context, pageErrors } = await openPresets(admin)
    try {
      await page.getByRole('tab', { name: 'Printer' }).click()
      expect(new URL(page.url()).searchParams.get('tab')).toBe('printer')
      await page.getByRole('button', { name: 'New printer profile' }).click()
      const dialog = page.getByRole('dialog', { name: 'New printer profile' })
      await dialog.getByLabel('Name').fill('Bench printer')
      await dialog.getByLabel('Bed width (X) (mm)').fill('220')
      await dialog.getByLabel('Nozzle diameter (mm)').fill('0.4')
      await dialog.getByRole('button', { name: 'Create' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('row').filter({ hasText: 'Bench printer' }).getByText('0.4 mm').waitFor()

      await page.getByRole('button', { name: 'New printer profile' }).click()
      await dialog.getByLabel('Name').fill('Bench printer')
      await dialog.getByRole('button', { name: 'Create' }).click()
      await expect.poll(() => dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true')
      expect(await dialog.textContent()).toContain('A printer profile named "Bench printer" exists already.')
      await screenshot(page, 'presets-name-taken')
      await dialog.getByRole('button', { name: 'Cancel' }).click()

      await page.getByRole('button', { name: 'Bench printer' }).click()
      const editor = page.getByRole('dialog', { name: 'Bench printer' })
      await editor.getByRole('button', { name: 'Delete' }).click()
      await editor.getByRole('button', { name: 'Delete for good' }).click()
      await editor.waitFor({ state: 'hidden' })
      await page.getByText('No printer profiles yet.').waitFor()
      expect((await call(suite.vault.baseUrl, 'GET', '/api/v1/printer-profiles', { token })).body.items).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('a user sees the profiles read-only', async () => {
    const user = await newAccount(suite.vault.baseUrl, token)
    const { page, context, pageErrors } = await openPresets(user)
    try {
      await page.getByText('Only admins can change them.').waitFor()
      await page.getByRole('button', { name: 'My PLA' }).click()
      const dialog = page.getByRole('dialog', { name: 'My PLA' })
      expect(await dialog.getByLabel('Vendor').getAttribute('readonly')).not.toBeNull()
      expect(await dialog.getByRole('button', { name: 'Save' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Choose a file' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'New filament profile' }).count()).toBe(0)
      await screenshot(page, 'presets-read-only')
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
