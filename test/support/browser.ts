import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { collectWebCoverage, recordPageCoverage } from './web-coverage.js'

/** Debian's Chromium; the suite never downloads a browser. */
const chromiumPath = '/usr/bin/chromium'

/** Launches headless Chromium with the browser's own background traffic (updates, sync, QUIC probes) turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** A request the page tried to make to a host other than the one under test. */
export interface BlockedRequest {
  url: string
  /** Playwright's resource type: `script`, `stylesheet`, `font`, `image`, `fetch`, ... */
  resourceType: string
}

export interface OfflinePage {
  context: BrowserContext
  page: Page
  /** Every request aborted because it left `origin`, in order. */
  blocked: BlockedRequest[]
  /** Uncaught exceptions thrown by the page's scripts. */
  pageErrors: Error[]
  /** What the vault's Content-Security-Policy refused, as Chromium reports it on the console. */
  cspViolations: string[]
}

/**
 * Opens a page in a fresh context whose only reachable origin is `origin` (for example
 * `http://127.0.0.1:40123`): every other request is aborted and recorded in `blocked`.
 * The context asks for reduced motion, so dialogs and menus are drawn settled at once: axe then
 * checks their colours as people see them, not half faded in. Close it with `context.close()`.
 * Under `npm run test:coverage` the page records the web UI's coverage until then.
 */
export async function openOfflinePage(browser: Browser, origin: string): Promise<OfflinePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' })
  const blocked: BlockedRequest[] = []
  await context.route('**/*', (route, request) => {
    if (new URL(request.url()).origin === origin) return route.continue()
    blocked.push({ url: request.url(), resourceType: request.resourceType() })
    return route.abort('internetdisconnected')
  })
  const page = await context.newPage()
  if (collectWebCoverage) await recordPageCoverage(browser, context, page)
  const pageErrors: Error[] = []
  page.on('pageerror', (error) => pageErrors.push(error))
  const cspViolations: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy'))
      cspViolations.push(message.text())
  })
  return { context, page, blocked, pageErrors, cspViolations }
}
