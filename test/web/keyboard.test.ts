import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { admin, login } from '../support/accounts.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const suite = setUpBrowserSuite()

interface Focused {
  name: string
  tag: string
  /** Whether the focused element draws a visible focus indicator (outline or ring). */
  visible: boolean
  /** The start of its markup, to say where the focus went when a test fails. */
  html: string
}

/** What has the keyboard focus: its accessible-ish name and whether a focus ring shows. */
const focused = (page: Page): Promise<Focused> =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null
    if (!element) return { name: '', tag: '', visible: false, html: '' }
    const style = getComputedStyle(element)
    const labelled = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : undefined
    return {
      name: (element.getAttribute('aria-label') ?? labelled ?? element.textContent ?? '').trim(),
      tag: element.tagName.toLowerCase(),
      visible: (style.outlineStyle !== 'none' && style.outlineWidth !== '0px') || style.boxShadow !== 'none',
      html: element.outerHTML.slice(0, 200),
    }
  })

/** Presses Tab until the focus is on an element whose name matches, as a keyboard user would. */
async function tabTo(page: Page, name: RegExp, limit = 80): Promise<Focused> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    const now = await focused(page)
    if (name.test(now.name)) return now
  }
  throw new Error(`Tab never reached ${name} (now on ${JSON.stringify(await focused(page))})`)
}

describe('keyboard only', () => {
  it('signs in, opens a model from the library and backs out of a destructive dialog without a mouse', async () => {
    const { baseUrl } = suite.vault
    const token = (await login(baseUrl, admin)).body.access_token as string
    await upload(baseUrl, token, 'Keyboard cube.stl', binaryCube(20))

    const { page, context, pageErrors } = await openVaultPage(suite.browser, baseUrl, '/')
    try {
      await tabTo(page, /^Username/)
      await page.keyboard.type(admin.username)
      await tabTo(page, /^Password/)
      await page.keyboard.type(admin.password)
      await page.keyboard.press('Enter')
      // Signed in once the form is gone (the sign-in page has a heading of its own).
      await page.getByRole('textbox', { name: 'Username' }).waitFor({ state: 'detached' })
      await page.getByRole('heading', { level: 1 }).first().waitFor()

      const library = await tabTo(page, /^Library$/)
      expect(library.visible, library.html).toBe(true)
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()

      // The card's own checkbox ("Select Keyboard cube") comes first, then its link.
      const card = await tabTo(page, /^Keyboard cube/)
      expect(card.visible, card.html).toBe(true)
      await screenshot(page, 'keyboard-library-card-focused')
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Keyboard cube', level: 1 }).waitFor()

      const remove = await tabTo(page, /^Delete model$/)
      expect(remove.visible, remove.html).toBe(true)
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', { name: 'Delete this model?' })
      await dialog.waitFor()
      // The safe choice has the focus: Enter now would keep the model.
      const safe = await focused(page)
      expect(safe.name, safe.html).toBe('Keep it')
      await screenshot(page, 'keyboard-delete-dialog')
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })
      // The focus goes back where it was (Mantine returns it just after the dialog has gone), and the model is still there.
      await expect.poll(async () => (await focused(page)).name).toBe('Delete model')
      await page.reload()
      await page.getByRole('heading', { name: 'Keyboard cube', level: 1 }).waitFor()
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('skips to the content with the first Tab, and never stops on the window-wide drop target', async () => {
    const { page, context, pageErrors } = await openVaultPage(suite.browser, suite.vault.baseUrl, '/library')
    try {
      await signIn(page, admin)
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()
      // A page freshly loaded: nothing has the focus yet.
      await page.reload()
      await page.getByRole('heading', { name: 'Library', level: 1 }).waitFor()

      await page.keyboard.press('Tab')
      const skip = await focused(page)
      expect(skip.name, skip.html).toBe('Skip to content')
      expect(skip.visible, skip.html).toBe(true)
      await screenshot(page, 'keyboard-skip-link')
      await page.keyboard.press('Enter')
      await expect.poll(async () => (await focused(page)).tag).toBe('main')

      // From the content to the end of the page, every stop is something to use: never the drop target or its input.
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab')
        const stop = await page.evaluate(() => {
          const element = document.activeElement
          return {
            html: element?.outerHTML.slice(0, 200) ?? '',
            unseen: Boolean(element?.closest('[aria-hidden="true"], [role="presentation"], input[type=file]')),
            pastTheEnd: !element || element === document.body || element.textContent === 'Skip to content',
          }
        })
        expect(stop.unseen, stop.html).toBe(false)
        if (stop.pastTheEnd) break
      }
      // The drop target stays out of the accessibility tree while nothing is dragged over the window.
      const overlay = page.getByText('Drop files and folders to upload them')
      expect(await overlay.evaluate((element) => Boolean(element.closest('[aria-hidden="true"]')))).toBe(true)
      await expectAccessible(page)
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
