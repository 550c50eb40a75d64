import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, login } from '../support/accounts.js'
import { backUp } from '../support/backups.js'
import { binaryCube, upload } from '../support/uploads.js'
import {
  expectAccessible,
  expectNoSidewaysScroll,
  openVaultPage,
  screenshot,
  setUpBrowserSuite,
  signIn,
} from '../support/web-ui.js'

const backupDir = mkdtempSync(join(tmpdir(), 'vault-e2e-backups-'))
const suite = setUpBrowserSuite({ ...adminEnv, VAULT_BACKUP_DIR: backupDir })

const adminToken = async () => (await login(suite.vault.baseUrl, admin)).body.access_token as string

beforeAll(async () => {
  await upload(suite.vault.baseUrl, await adminToken(), 'cube.stl', binaryCube(20))
}, 60_000)

/** Flips one byte in the middle of an archive's gzip stream, one the inflater does not ignore. */
function corrupt(path: string): void {
  const archive = readFileSync(path)
  const original = gunzipSync(archive)
  for (let at = Math.floor(archive.length / 2); ; at++) {
    const damaged = Buffer.from(archive)
    damaged[at] = (damaged[at] ?? 0) ^ 0x5a
    let changed: boolean
    try {
      changed = !gunzipSync(damaged).equals(original)
    } catch {
      changed = true
    }
    if (changed) {
      writeFileSync(path, damaged)
      return
    }
  }
}

async function openStorage(page: Page): Promise<void> {
  await signIn(page, admin)
  await page.getByRole('heading', { name: 'Storage', level: 1 }).waitFor()
}

describe('Settings → Access', () => {
  it('creates an API key, shows it once, and a revoked key no longer signs in', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/settings/access',
    )
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Access', level: 1 }).waitFor()
      await page.getByText('No API keys yet.').waitFor()
      await page.getByLabel("New key's name").fill('Slicer hook')
      await page.getByRole('textbox', { name: 'It may' }).click()
      await page.getByRole('option', { name: 'Read only' }).click()
      await page.getByRole('textbox', { name: 'It may' }).click()
      await page.getByRole('option', { name: 'Slicer hook: upload only' }).click()
      await page.getByRole('button', { name: 'Create key' }).click()
      const shown = page.getByRole('dialog', { name: 'API key “Slicer hook”' })
      await shown.getByText('This is the only time the vault shows this key.').waitFor()
      const key = (await shown.getByLabel('API key value').textContent())?.trim() ?? ''
      expect(key).toMatch(/^mvk_/)
      await shown.getByRole('button', { name: 'Copy key' }).waitFor()
      await screenshot(page, 'access-new-key')
      await expectAccessible(page, '[role="dialog"]')
      await shown.getByRole('button', { name: 'Done' }).click()
      await shown.waitFor({ state: 'hidden' })

      // The list shows the prefix, never the value again.
      const table = page.getByRole('table', { name: 'API keys' })
      await table.getByRole('cell', { name: 'Slicer hook', exact: true }).waitFor()
      // A hook's key can do nothing but upload, and the table says so.
      const row = table.getByRole('row', { name: /Slicer hook/ })
      expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['upload', 'No expiry']))
      expect(await page.getByText(key).count()).toBe(0)
      expect(key.startsWith((await table.locator('code').first().textContent()) ?? '-')).toBe(true)

      const withKey = await login(suite.vault.baseUrl, { username: admin.username, api_key: key })
      expect(withKey.status).toBe(200)
      await page.reload()
      // The table again (with its scopes and expiry, for the screenshot and the accessibility check), now used.
      await table.getByRole('cell', { name: 'upload', exact: true }).waitFor()
      await table.getByRole('cell', { name: 'Never' }).waitFor({ state: 'detached' })
      await screenshot(page, 'access')
      await expectAccessible(page)
      await page.setViewportSize({ width: 390, height: 844 })
      const cards = page.getByRole('list', { name: 'API keys' })
      await cards.getByRole('button', { name: 'Revoke Slicer hook' }).waitFor()
      await expectNoSidewaysScroll(page)
      await screenshot(page, 'access-narrow')
      await expectAccessible(page)
      await page.setViewportSize({ width: 1280, height: 800 })

      await table.getByRole('button', { name: 'Revoke Slicer hook' }).click()
      const confirm = page.getByRole('dialog', { name: 'Revoke “Slicer hook”?' })
      await confirm.getByText('can no longer sign in').waitFor()
      await confirm.getByRole('button', { name: 'Revoke key' }).click()
      await confirm.waitFor({ state: 'hidden' })
      await table.getByText(/^Revoked/).waitFor()
      const refused = await login(suite.vault.baseUrl, { username: admin.username, api_key: key })
      expect(refused.status).toBe(401)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('a wrong current password is refused with the reason under the field', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/settings/access')
    try {
      await signIn(page, admin)
      await page.getByLabel('Current password').fill('not-the-password')
      await page.getByLabel('New password').fill('short')
      await page.getByText('7 more characters needed').waitFor()
      await page.getByLabel('New password').fill('a-new-long-password')
      await page.getByRole('button', { name: 'Change password' }).click()
      await page.getByText('The current password is wrong.').waitFor()
      await screenshot(page, 'access-wrong-password')
      await expectAccessible(page)
      expect((await login(suite.vault.baseUrl, admin)).status).toBe(200)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe('Settings → Storage', () => {
  it('backs up now with progress, then restores that backup behind a typed confirmation and signs in again', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/settings/storage',
    )
    try {
      await openStorage(page)
      await page.getByText(backupDir).waitFor()
      await page.getByText('Archives older than 30 days are removed').waitFor()
      await page.getByText('No backups yet.').waitFor()
      await page.getByRole('button', { name: 'Back up now' }).click()
      const table = page.getByRole('table', { name: 'Backups' })
      await table.getByText('Complete').waitFor()
      await table.getByText('Not configured').waitFor()
      await page.setViewportSize({ width: 390, height: 844 })
      // On a phone the backups are cards, their Restore button in reach without scrolling sideways.
      const cards = page.getByRole('list', { name: 'Backups' })
      await cards.getByRole('button', { name: /^Restore the backup of/ }).waitFor()
      await expectNoSidewaysScroll(page)
      await screenshot(page, 'storage-narrow')
      await expectAccessible(page)
      await page.setViewportSize({ width: 1280, height: 800 })
      await table.waitFor()
      await screenshot(page, 'storage')
      await expectAccessible(page)

      // Made after the backup: the restore takes it away.
      const token = await adminToken()
      const later = await call(suite.vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Later' } })
      expect(later.status).toBe(201)

      await table.getByRole('button', { name: /^Restore the backup of/ }).click()
      const dialog = page.getByRole('dialog', { name: /^Restore the backup of/ })
      await dialog.getByText('Everything changed since is lost.').waitFor()
      const restoreButton = dialog.getByRole('button', { name: 'Restore this backup' })
      expect(await restoreButton.isDisabled()).toBe(true)
      await dialog.getByLabel(/to confirm/).fill('restor')
      expect(await restoreButton.isDisabled()).toBe(true)
      await dialog.getByLabel(/to confirm/).fill('restore')
      await screenshot(page, 'storage-restore-confirm')
      await expectAccessible(page, '[role="dialog"]')
      await restoreButton.click()

      const done = page.getByRole('dialog', { name: 'Restored' })
      await done.getByText('Every session has ended, yours too').waitFor({ timeout: 60_000 })
      await screenshot(page, 'storage-restored')
      // The old token is dead: the restore ended every session.
      expect((await call(suite.vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(401)
      await done.getByRole('button', { name: 'Sign in again' }).click()
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
      await openStorage(page)
      await page.getByRole('table', { name: 'Backups' }).getByText('Complete').first().waitFor()

      const collections = await call(suite.vault.baseUrl, 'GET', '/api/v1/collections', { token: await adminToken() })
      expect(collections.body.items.map((c: { name: string }) => c.name)).not.toContain('Later')
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)

  it('refuses to restore a corrupted backup and says why; nothing changes', async () => {
    const token = await adminToken()
    const backup = await backUp(suite.vault.baseUrl, token)
    corrupt(join(backupDir, backup.file_name))
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/settings/storage')
    try {
      await openStorage(page)
      // Newest first: the corrupted one is the first row.
      await page
        .getByRole('table', { name: 'Backups' })
        .getByRole('button', { name: /^Restore the backup of/ })
        .first()
        .click()
      const dialog = page.getByRole('dialog', { name: /^Restore the backup of/ })
      await dialog.getByLabel(/to confirm/).fill(backup.id)
      await dialog.getByRole('button', { name: 'Restore this backup' }).click()
      await dialog.getByRole('alert').getByText('The backup archive is not usable').waitFor({ timeout: 60_000 })
      await screenshot(page, 'storage-restore-refused')
      await expectAccessible(page, '[role="dialog"]')
      // Still signed in: nothing was restored.
      expect((await call(suite.vault.baseUrl, 'GET', '/api/v1/me', { token })).status).toBe(200)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 120_000)
})
