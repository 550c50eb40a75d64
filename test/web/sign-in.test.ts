import { describe, expect, it } from 'vitest'
import { admin } from '../support/accounts.js'
import { startBuiltVault } from '../support/built-vault.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

const refreshTokenKey = 'model-vault.refresh-token'

describe('signing in and out of the web UI', () => {
  it('a wrong password keeps you out and says why, next to the form; the page keeps to its Content-Security-Policy', async () => {
    const { page, context, blocked, pageErrors, cspViolations } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/',
    )
    try {
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
      await screenshot(page, 'sign-in')
      await expectAccessible(page)
      await signIn(page, { username: admin.username, password: 'not-the-password' })
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toContain('The username or the credential is wrong.')
      await screenshot(page, 'sign-in-wrong-password')
      expect(page.url()).toContain('/sign-in')
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('signing in lands on the page that asked for it, in the shell with its navigation', async () => {
    const { page, context, blocked, pageErrors, cspViolations } = await openVaultPage(
      suite.browser,
      suite.vault.baseUrl,
      '/library',
    )
    try {
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
      expect(new URL(page.url()).search).toBe('?next=%2Flibrary')
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      expect(new URL(page.url()).pathname).toBe('/library')
      const nav = page.getByRole('navigation', { name: 'Main' })
      for (const label of ['Overview', 'Library', 'Upload', 'Collections', 'Printers', 'Farm', 'Presets', 'Users']) {
        await nav.getByRole('link', { name: label }).waitFor()
      }
      await nav.getByRole('button', { name: 'Settings' }).click()
      await nav.getByRole('link', { name: 'Storage' }).click()
      await page.getByRole('heading', { name: 'Storage', level: 1 }).waitFor()
      await nav.getByRole('link', { name: 'Library' }).click()
      await screenshot(page, 'library')
      await expectAccessible(page)
      expect(blocked).toEqual([])
      expect(pageErrors).toEqual([])
      expect(cspViolations).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('the account menu leads to the API reference; the colour scheme switches, is remembered, and can follow the system again', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      const scheme = () => page.evaluate(() => document.documentElement.getAttribute('data-mantine-color-scheme'))
      // The test browser's system scheme is light.
      expect(await scheme()).toBe('light')
      await page.getByRole('button', { name: `Account: ${admin.username}` }).click()
      const docs = page.getByRole('menuitem', { name: 'API reference' })
      expect(new URL((await docs.getAttribute('href')) ?? '').pathname).toBe('/docs')
      expect(await docs.getAttribute('target')).toBe('_blank')
      // Following the system already: nothing to go back to.
      expect(await page.getByRole('menuitem', { name: "Follow the system's colour scheme" }).count()).toBe(0)
      await screenshot(page, 'account-menu')
      await expectAccessible(page)
      await page.keyboard.press('Escape')
      await page.getByRole('button', { name: 'Use the dark colour scheme' }).click()
      await expect.poll(scheme).toBe('dark')
      await page.getByRole('button', { name: 'Use the light colour scheme' }).waitFor()
      await expectAccessible(page)
      await page.reload()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      expect(await scheme()).toBe('dark')
      await page.getByRole('button', { name: `Account: ${admin.username}` }).click()
      await page.getByRole('menuitem', { name: "Follow the system's colour scheme" }).click()
      await expect.poll(scheme).toBe('light')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('a path no page answers says so and leads back, inside the shell', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/no/such/page')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor()
      await page.getByText('The vault has no page at /no/such/page').waitFor()
      expect(await page.getByText('still being built').count()).toBe(0)
      await page.getByRole('navigation', { name: 'Main' }).waitFor()
      await expectAccessible(page)
      await page.getByRole('main').getByRole('link', { name: 'library' }).click()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('signing out ends the session: a reload stays signed out', async () => {
    const { page, context } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await screenshot(page, 'overview')
      const refreshToken = await page.evaluate((key) => localStorage.getItem(key), refreshTokenKey)
      await page.getByRole('button', { name: `Account: ${admin.username}` }).click()
      await page.getByRole('menuitem', { name: 'Sign out' }).waitFor()
      await expectAccessible(page)
      await page.getByRole('menuitem', { name: 'Sign out' }).click()
      await page.getByText('You have signed out.').waitFor()
      expect(await page.evaluate((key) => localStorage.getItem(key), refreshTokenKey)).toBeNull()
      // The vault ended the session too: its refresh token no longer works.
      const refresh = await fetch(`${suite.vault.baseUrl}/api/v1/auth/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
      })
      expect(refresh.status).toBe(401)
      await page.reload()
      await page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
    } finally {
      await context.close()
    }
  })

  it('a deep link after the session ended leads to sign-in, then back to that page', async () => {
    const { page, context } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      // Someone else uses this browser's refresh token first: the browser's copy is now a reused
      // token, and presenting it revokes the session.
      const stolen = await page.evaluate((key) => localStorage.getItem(key), refreshTokenKey)
      const theft = await fetch(`${suite.vault.baseUrl}/api/v1/auth/refresh`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: stolen }),
      })
      expect(theft.status).toBe(200)

      await page.goto(`${suite.vault.baseUrl}/settings/access?tab=keys`)
      await page.getByText('Your session has ended. Sign in again to continue.').waitFor()
      expect(new URL(page.url()).searchParams.get('next')).toBe('/settings/access?tab=keys')
      await screenshot(page, 'sign-in-session-ended')
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Access', level: 1 }).waitFor()
      expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe('/settings/access?tab=keys')
    } finally {
      await context.close()
    }
  })

  it('a generated first password is to be replaced right after signing in; a wrong current one is named', async () => {
    const fresh = await startBuiltVault()
    const { page, context } = await openVaultPage(suite.browser, fresh.baseUrl, '/')
    try {
      const password = /"password":"([^"]+)"/.exec(fresh.output())?.[1] ?? ''
      await signIn(page, { username: 'admin', password })
      const dialog = page.getByRole('dialog', { name: 'Replace the generated password' })
      await dialog.waitFor()
      await screenshot(page, 'replace-generated-password')
      await expectAccessible(page, '[role="dialog"]')

      await dialog.getByLabel('Current password').fill('not the password')
      await dialog.getByLabel('New password').fill('a password I chose myself')
      await dialog.getByRole('button', { name: 'Change password' }).click()
      await dialog.getByText('The current password is wrong.').waitFor()

      await dialog.getByLabel('Current password').fill(password)
      await dialog.getByRole('button', { name: 'Change password' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.reload()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      expect(await dialog.count()).toBe(0)
      await expectAccessible(page)
    } finally {
      await context.close()
      await fresh.close()
    }
  })

  it('an access token the vault refuses is refreshed silently, once for all the calls that failed, and the calls succeed', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/library')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      const before = await page.evaluate((key) => localStorage.getItem(key), refreshTokenKey)
      // From now on the vault "forgets" the access token: every API call but sign-in and refresh is
      // answered 401 until the page presents a token it has not sent before.
      const refused = new Set<string>()
      await context.route('**/api/v1/**', async (route, request) => {
        const authorization = (await request.allHeaders()).authorization ?? ''
        if (request.url().includes('/api/v1/auth/') || (refused.size > 0 && !refused.has(authorization))) {
          return route.continue()
        }
        refused.add(authorization)
        return route.fulfill({
          status: 401,
          contentType: 'application/problem+json',
          body: JSON.stringify({ status: 401, code: 'invalid_token', title: 'Unauthorized', detail: 'Expired.' }),
        })
      })
      const refreshes: string[] = []
      page.on('request', (request) => {
        if (request.url().endsWith('/api/v1/auth/refresh')) refreshes.push(request.url())
      })
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click()
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Library' }).click()
      await page.getByRole('heading', { name: 'Your library is empty' }).waitFor()
      expect(refreshes).toHaveLength(1)
      // The rotated refresh token is kept (written as the refresh answers, which may follow the page's calls).
      await expect
        .poll(() => page.evaluate((key) => localStorage.getItem(key), refreshTokenKey), { timeout: 15_000 })
        .not.toBe(before)
      expect(page.url()).not.toContain('/sign-in')
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
