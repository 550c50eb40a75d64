import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { admin, call, login } from '../support/accounts.js'
import {
  expectAccessible,
  expectNoSidewaysScroll,
  openVaultPage,
  screenshot,
  setUpBrowserSuite,
  signIn,
} from '../support/web-ui.js'

const suite = setUpBrowserSuite()

const usersTable = (page: Page) => page.getByRole('table', { name: 'Users' })
const roleOf = async (username: string) => {
  const token = (await login(suite.vault.baseUrl, admin)).body.access_token
  const users = await call(suite.vault.baseUrl, 'GET', '/api/v1/admin/users', { token })
  return users.body.items.find((user: { username: string }) => user.username === username)
}

describe('the users page', () => {
  it('creates a user, changes their role, disables them and resets their password', async () => {
    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/users')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
      await usersTable(page).getByText(`${admin.username} (you)`).waitFor()

      // The password rule is shown before the vault has to refuse.
      await page.getByLabel('Username').fill('maker')
      await page.getByLabel(/^Password/).fill('short')
      await page.getByText('7 more characters needed').waitFor()
      await page.getByLabel(/^Password/).fill('maker-password-1')
      await page.getByRole('button', { name: 'Create user' }).click()
      await usersTable(page).getByText('maker', { exact: true }).waitFor()
      expect(await login(suite.vault.baseUrl, { username: 'maker', password: 'maker-password-1' })).toMatchObject({
        status: 200,
      })

      // A taken name (in any case) is refused with the vault's words under the field.
      await page.getByLabel('Username').fill('Maker')
      await page.getByLabel(/^Password/).fill('maker-password-2')
      await page.getByRole('button', { name: 'Create user' }).click()
      await page.getByText(/taken|exists/i).waitFor()
      await screenshot(page, 'users-name-taken')
      await expectAccessible(page)

      await usersTable(page).getByRole('textbox', { name: 'Role of maker' }).click()
      await page.getByRole('option', { name: 'Admin' }).click()
      await expect.poll(async () => (await roleOf('maker')).role).toBe('admin')

      await usersTable(page).getByRole('button', { name: 'Disable maker' }).click()
      await usersTable(page).getByRole('button', { name: 'Enable maker' }).waitFor()
      await usersTable(page).getByText('Disabled').waitFor()
      expect((await login(suite.vault.baseUrl, { username: 'maker', password: 'maker-password-1' })).status).not.toBe(
        200,
      )
      await screenshot(page, 'users')
      await expectAccessible(page)
      await usersTable(page).getByRole('button', { name: 'Enable maker' }).click()
      await usersTable(page).getByRole('button', { name: 'Disable maker' }).waitFor()

      await usersTable(page).getByRole('button', { name: 'Reset password of maker' }).click()
      const dialog = page.getByRole('dialog', { name: "Reset maker's password" })
      await dialog.getByLabel('New password').fill('maker-password-new')
      await screenshot(page, 'users-reset-password')
      await expectAccessible(page, '[role="dialog"]')
      await dialog.getByRole('button', { name: 'Reset password' }).click()
      await dialog.waitFor({ state: 'hidden' })
      expect((await login(suite.vault.baseUrl, { username: 'maker', password: 'maker-password-1' })).status).toBe(401)
      expect((await login(suite.vault.baseUrl, { username: 'maker', password: 'maker-password-new' })).status).toBe(200)

      await page.setViewportSize({ width: 390, height: 844 })
      // On a phone each user is a card, its buttons in reach without scrolling sideways.
      await page.getByRole('list', { name: 'Users' }).getByRole('button', { name: 'Reset password of maker' }).waitFor()
      await expectNoSidewaysScroll(page)
      await screenshot(page, 'users-narrow')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('refuses to demote the last superuser and says why on the row', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/users')
    try {
      await signIn(page, admin)
      await usersTable(page)
        .getByRole('textbox', { name: `Role of ${admin.username}` })
        .click()
      await page.getByRole('option', { name: 'User', exact: true }).click()
      await usersTable(page).getByRole('alert').waitFor()
      expect(await usersTable(page).getByRole('alert').textContent()).toMatch(/superuser/i)
      expect((await roleOf(admin.username)).role).toBe('superuser')
      await screenshot(page, 'users-last-superuser')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
