import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'

/**
 * Set by `npm run test:coverage`: the built web UI carries source maps and every Chromium page
 * records which of its scripts' code ran (V8's JS coverage), for `scripts/web-coverage.ts`.
 */
export const collectWebCoverage = Boolean(process.env.VAULT_TEST_WEB_COVERAGE)

/** The kind of build (`test-results/<kind>/<source state>`) that carries the web UI's source maps. */
export const webCoverageBuild = 'build-coverage'

/** Where each page's V8 coverage goes, one JSON file per page (under git-ignored test-results). */
export const webCoverageRawDir = 'test-results/coverage-web/raw'

/** One script's V8 coverage as a page recorded it: its URL and the counts of its functions and blocks. */
export interface RecordedScript {
  url: string
  functions: Awaited<ReturnType<Page['coverage']['stopJSCoverage']>>[number]['functions']
}

/** The pages of each browser whose coverage has not been written yet, each with its writer. */
const unwritten = new WeakMap<Browser, Map<Page, () => Promise<void>>>()
let written = 0

/**
 * Starts recording `page`'s JS coverage across its navigations and writes it before its context or
 * its browser closes (the recording ends with the page, so the closes are wrapped to write first).
 */
export async function recordPageCoverage(browser: Browser, context: BrowserContext, page: Page): Promise<void> {
  await page.coverage.startJSCoverage({ resetOnNavigation: false })
  const pages = unwritten.get(browser) ?? wrapClose(browser)
  pages.set(page, async () => {
    pages.delete(page)
    if (page.isClosed()) return
    const scripts: RecordedScript[] = (await page.coverage.stopJSCoverage())
      .filter((entry) => /^https?:.*\.js$/.test(entry.url))
      .map(({ url, functions }) => ({ url, functions }))
    await mkdir(webCoverageRawDir, { recursive: true })
    await writeFile(join(webCoverageRawDir, `${process.pid}-${++written}.json`), JSON.stringify(scripts))
  })
  const closeContext = context.close.bind(context)
  context.close = async (options) => {
    await pages.get(page)?.()
    return closeContext(options)
  }
}

function wrapClose(browser: Browser): Map<Page, () => Promise<void>> {
  const pages = new Map<Page, () => Promise<void>>()
  unwritten.set(browser, pages)
  const closeBrowser = browser.close.bind(browser)
  browser.close = async (options) => {
    for (const write of [...pages.values()]) await write()
    return closeBrowser(options)
  }
  return pages
}
