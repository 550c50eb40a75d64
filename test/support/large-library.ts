import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { openDatabaseUrl, writeLibrary } from '../../scripts/bench/library-generator.js'
import { admin, adminEnv, call } from './accounts.js'
import { launchChromium } from './browser.js'
import { type BuiltVault, startBuiltVault } from './built-vault.js'
import { listAllPages } from './library.js'

/** How many models the large-library browser tests scroll through. */
export const largeLibrarySize = 2000

/**
 * For one browser test file: the built vault holding `largeLibrarySize` models and Chromium.
 * `byName` is the models in the order the library shows them with `?sort=name`, read from the API.
 */
export function setUpLargeLibrary(): { vault: BuiltVault; browser: Browser; byName: { id: string; name: string }[] } {
  // Filled in by beforeAll, before any test reads it.
  const suite = {} as ReturnType<typeof setUpLargeLibrary>
  beforeAll(async () => {
    // Written straight into the database before the vault starts (2,000 uploads would take minutes),
    // with the library benchmark's generator: names, tags and file summaries like a real library's.
    const prepare = async (database: { url: string }, dataDir: string) => {
      const db = openDatabaseUrl(database.url, dataDir)
      try {
        await writeLibrary(db, largeLibrarySize)
      } finally {
        await db.close()
      }
    }
    ;[suite.vault, suite.browser] = await Promise.all([startBuiltVault(adminEnv, prepare), launchChromium()])
    const { access_token: token } = (await call(suite.vault.baseUrl, 'POST', '/api/v1/auth/login', { json: admin }))
      .body as { access_token: string }
    suite.byName = (await listAllPages(suite.vault.baseUrl, token, 'sort=name&limit=200')).items
    expect(suite.byName).toHaveLength(largeLibrarySize)
  }, 600_000)
  afterAll(async () => {
    await suite.browser?.close()
    await suite.vault?.close()
  })
  return suite
}

/** The model page's path, as the library links to it. */
export const modelHref = (model: { id: string } | undefined) => `/models/${model!.id}`

/**
 * Scrolls to the end again and again (each time the next page loads) until `last` shows; answers
 * the most elements `drawn` counted on the way.
 */
export async function scrollToEnd(page: Page, last: Locator, drawn: Locator): Promise<number> {
  let most = 0
  for (let step = 0; step < 100 && (await last.count()) === 0; step++) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
    await page
      .waitForFunction((before) => document.documentElement.scrollHeight > before, height, { timeout: 5000 })
      .catch(() => undefined)
    most = Math.max(most, await drawn.count())
  }
  await last.waitFor()
  return most
}
