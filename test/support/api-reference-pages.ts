import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { type ServerType, serve } from '@hono/node-server'
import { Hono } from 'hono'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv } from './accounts.js'
import { launchChromium, type OfflinePage, openOfflinePage } from './browser.js'
import { startTestVault, type TestVault } from './test-vault.js'

/**
 * The API reference pages (Swagger UI and ReDoc) in Chromium, served by a vault at its root
 * (`prefix` empty) or by a Hono app that mounts the vault under `prefix`. One test file per way
 * of serving, so each stays within the per-file time budget.
 */
export function describeApiReferencePages(prefix: '' | `/${string}`): void {
  let vault: TestVault
  let browser: Browser
  let mounted: ServerType | undefined
  let mountedOrigin: string

  beforeAll(async () => {
    ;[vault, browser] = await Promise.all([startTestVault(adminEnv), launchChromium()])
    if (!prefix) return
    mounted = serve({ fetch: new Hono().route(prefix, vault.app).fetch, hostname: '127.0.0.1', port: 0 })
    await once(mounted, 'listening')
    mountedOrigin = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => (mounted ? mounted.close(resolve) : resolve(undefined)))
    await vault?.close()
  })

  /** Opens `path` with every host but `origin` unreachable, and closes the page afterwards. */
  async function withOfflinePage(
    origin: string,
    path: string,
    use: (offline: OfflinePage) => Promise<void>,
  ): Promise<void> {
    const offline = await openOfflinePage(browser, origin)
    try {
      await offline.page.goto(`${origin}${path}`)
      await use(offline)
    } finally {
      await offline.context.close()
    }
  }

  describe(`the API reference served ${prefix ? `mounted under ${prefix}` : 'at the root'}`, () => {
    const origin = () => (prefix ? mountedOrigin : vault.baseUrl)

    it('Swagger UI shows the title and GET /api/v1/health, and Try it out reaches this vault, without contacting any other host', async () => {
      await withOfflinePage(origin(), `${prefix}/docs`, async ({ page, blocked, pageErrors, cspViolations }) => {
        const operation = page.locator('.opblock-get', {
          has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/health$/ }),
        })
        await operation.waitFor()
        expect(await page.locator('.info .title').innerText()).toContain('model-vault API')
        expect(await page.locator('.servers select').inputValue()).toBe(prefix || '/')

        await operation.locator('.opblock-summary').click()
        await operation.getByRole('button', { name: 'Try it out' }).click()
        await operation.getByRole('button', { name: 'Execute' }).click()
        const liveStatus = operation.locator('.live-responses-table tr.response .response-col_status')
        await liveStatus.waitFor()
        expect(await operation.locator('.request-url pre').innerText()).toBe(`${origin()}${prefix}/api/v1/health`)
        expect(await liveStatus.innerText()).toBe('200')

        expect(blocked).toEqual([])
        expect(pageErrors).toEqual([])
        expect(cspViolations).toEqual([])
      })
    })

    it('Swagger UI: a token from login, entered under Authorize, lets Try it out call a protected operation', async () => {
      const login = await fetch(`${vault.baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(admin),
      })
      const token = ((await login.json()) as { access_token: string }).access_token
      await withOfflinePage(origin(), `${prefix}/docs`, async ({ page, blocked, pageErrors, cspViolations }) => {
        const operation = page.locator('.opblock-get', {
          has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/me$/ }),
        })
        await operation.waitFor()
        await page.locator('.auth-wrapper .authorize').click()
        // The dialog offers both schemes: the access token goes to bearerAuth (the other takes an API key).
        const bearer = page.locator('.auth-container').filter({ hasText: 'bearerAuth' })
        await bearer.locator('input').fill(token)
        await bearer.locator('.auth-btn-wrapper button.authorize').click()
        await bearer.locator('.auth-btn-wrapper button.btn-done').click()

        await operation.locator('.opblock-summary-control').click()
        await operation.getByRole('button', { name: 'Try it out' }).click()
        await operation.getByRole('button', { name: 'Execute' }).click()
        const liveStatus = operation.locator('.live-responses-table tr.response .response-col_status')
        await liveStatus.waitFor()
        expect(await liveStatus.innerText()).toBe('200')
        expect(
          await operation.locator('.live-responses-table .response-col_description pre').first().innerText(),
        ).toContain(`"username": "${admin.username}"`)

        expect(blocked).toEqual([])
        expect(pageErrors).toEqual([])
        expect(cspViolations).toEqual([])
      })
    })

    it('ReDoc shows the title and GET /api/v1/health; and the page asks no other host for anything (not even for the Redocly footer logo) and breaks no rule of its Content-Security-Policy', async () => {
      await withOfflinePage(origin(), `${prefix}/redoc`, async ({ page, blocked, pageErrors, cspViolations }) => {
        const operation = page.locator('[data-section-id="operation/getHealth"]')
        await operation.waitFor()
        expect(await page.locator('h1').innerText()).toBe('model-vault API (0.0.0-test)')
        expect(await operation.locator('h2').innerText()).toBe('Liveness and per-component readiness')
        expect(await operation.getByRole('button', { name: 'get /api/v1/health', exact: true }).count()).toBe(1)
        expect(await operation.getByText(`${origin()}${prefix}/api/v1/health`, { exact: true }).count()).toBe(1)

        expect(blocked).toEqual([])
        expect(pageErrors).toEqual([])
        expect(cspViolations).toEqual([])
      })
    })
  })
}
