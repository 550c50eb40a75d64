import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import axe from 'axe-core'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { admin, adminEnv } from './accounts.js'
import { launchChromium, type OfflinePage, openOfflinePage } from './browser.js'
import { type BuiltVault, startBuiltVault } from './built-vault.js'

/** Where every page the browser suite visits is photographed (ignored by git). */
export const screenshotsDir = 'test-results/screenshots'

/**
 * For one browser test file: starts the built vault (with `env`, or what `env()` resolves once
 * servers it names are up; by default the `admin` superuser) and Chromium before its tests and
 * closes both after them. Read `vault` and `browser` inside tests.
 */
export function setUpBrowserSuite(env: Record<string, string> | (() => Promise<Record<string, string>>) = adminEnv): {
  vault: BuiltVault
  browser: Browser
} {
  // Filled in by beforeAll, before any test reads it.
  const suite = {} as { vault: BuiltVault; browser: Browser }
  beforeAll(async () => {
    const vaultEnv = typeof env === 'function' ? await env() : env
    ;[suite.vault, suite.browser] = await Promise.all([startBuiltVault(vaultEnv), launchChromium()])
  }, 240_000)
  afterAll(async () => {
    await suite.browser?.close()
    await suite.vault?.close()
  })
  return suite
}

/** Opens a fresh offline page (only the vault's origin reachable) at `path` of the vault. */
export async function openVaultPage(browser: Browser, baseUrl: string, path = '/'): Promise<OfflinePage> {
  const offline = await openOfflinePage(browser, new URL(baseUrl).origin)
  await offline.page.goto(new URL(path.replace(/^\//, ''), `${baseUrl}/`).href)
  return offline
}

/** Saves a full-page screenshot as `test-results/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(screenshotsDir, { recursive: true })
  await page.screenshot({ path: join(screenshotsDir, `${name}.png`), fullPage: true })
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

/**
 * Runs axe-core (its source comes from the installed package, never a CDN) on the page as it is
 * now, or only inside `within` (a CSS selector: an open dialog, whose overlay dims the page behind
 * it), and fails on any serious or critical violation, naming the rule and the elements.
 */
export async function expectAccessible(page: Page, within?: string): Promise<void> {
  // Evaluated through the DevTools protocol: an inline script tag would break the page's Content-Security-Policy.
  await page.evaluate(axe.source)
  const violations = await page.evaluate(async (context) => {
    const { axe } = window as unknown as {
      axe: { run: (context: string | Document) => Promise<{ violations: AxeViolation[] }> }
    }
    return (await axe.run(context ?? document)).violations
  }, within)
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.help}): ${JSON.stringify(violation.nodes.map((n) => n.target))}`)
  expect(serious).toEqual([])
}

/** Fills and submits the sign-in form, the way a person would. */
/**
 * Nothing on the page is wider than the window: no sideways scrolling (a phone's layout). Waits
 * for the layout to settle (the shell slides its navigation away when the window narrows), then
 * names what sticks out.
 */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const measure = () =>
    page.evaluate(() => {
      const { scrollWidth, clientWidth } = document.documentElement
      const widest = [...document.body.querySelectorAll('*')]
        .filter((element) => element.getBoundingClientRect().right > clientWidth + 0.5)
        .slice(-3)
        .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join('.')}`)
      return { overflow: scrollWidth - clientWidth, widest }
    })
  await expect
    .poll(async () => (await measure()).overflow, { timeout: 5_000 })
    .toBeLessThanOrEqual(0)
    .catch(async () => {
      expect.fail(`the page scrolls sideways; sticking out: ${(await measure()).widest.join('; ')}`)
    })
}

export async function signIn(page: Page, credentials: { username: string; password: string }): Promise<void> {
  await page.getByLabel('Username').fill(credentials.username)
  await page.getByLabel('Password').fill(credentials.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** Opens `path` of the vault and signs in on the page it shows, as a person following a link would. */
export async function openSignedIn(
  browser: Browser,
  baseUrl: string,
  path: string,
  credentials: { username: string; password: string } = admin,
): Promise<OfflinePage> {
  const opened = await openVaultPage(browser, baseUrl, path)
  await opened.page.getByRole('heading', { name: 'Sign in to model-vault' }).waitFor()
  await signIn(opened.page, credentials)
  return opened
}

/** The 3D view, or the page's sentence saying WebGL is unavailable: whichever this browser gives. */
export async function waitForViewer(page: Page): Promise<'canvas' | 'no-webgl'> {
  const canvas = page.getByRole('img', { name: /^3D view of / })
  const noWebGl = page.getByText('WebGL is unavailable')
  await canvas.or(noWebGl).first().waitFor({ timeout: 30_000 })
  return (await canvas.count()) > 0 ? 'canvas' : 'no-webgl'
}
