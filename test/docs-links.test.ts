import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The documentation's links: every relative link must name a file or folder of the checkout, and
 * every `#anchor` a heading (or an `<a id>`) of the page it points at. External http(s) links are
 * not fetched, only checked to be well-formed URLs.
 */

const root = process.cwd()

/** The pages checked: the root documents and every Markdown file under docs/. */
function documentationPages(): string[] {
  const rootPages = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md']
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path))
    .sort()
  return [...rootPages, ...docs]
}

/**
 * GitHub's heading anchor for `text`, as github-slugger makes it: lower case, every character but
 * letters, marks, digits, connector punctuation (`_`), spaces and hyphens dropped, then each space
 * a hyphen. Markdown around the words (code spans, emphasis, links) is reduced to its text first,
 * as GitHub slugs the rendered heading. A repeated slug gets `-1`, `-2`… (see `anchorsOf`).
 */
function githubSlug(text: string): string {
  return inlineText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** A heading's rendered text: links and images by their text, HTML tags and emphasis marks gone. */
function inlineText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*|`)/g, '')
    .trim()
}

/** The lines of `markdown` outside fenced code blocks, with their 1-based line numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = []
  let fence: string | undefined
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1]
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined
      return
    }
    if (fence === undefined) lines.push({ line: index + 1, text })
  })
  return lines
}

/** Every anchor a page offers: its `#` headings' slugs (repeats numbered as GitHub does) and `<a id|name>`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1]
    if (heading !== undefined) {
      const slug = githubSlug(heading)
      const count = seen.get(slug) ?? 0
      seen.set(slug, count + 1)
      anchors.add(count === 0 ? slug : `${slug}-${count}`)
    }
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '')
  }
  return anchors
}

interface Link {
  line: number
  target: string
}

/** The link targets of a page: inline links and images, reference definitions, autolinks and HTML `<a href>`/`<img src>`, outside code. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = []
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[\s\S]*?\1/g, '')
    for (const match of prose.matchAll(/\]\(([^)]*)\)/g)) links.push({ line, target: linkDestination(match[1] ?? '') })
    const definition = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose)
    if (definition) links.push({ line, target: definition[1] ?? '' })
    for (const match of prose.matchAll(/<(https?:\/\/[^>\s]+)>/g)) links.push({ line, target: match[1] ?? '' })
    for (const match of prose.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]*)"/g))
      links.push({ line, target: match[1] ?? '' })
  }
  return links
}

/** The destination of `(destination "title")`: without its title and angle brackets; spaces kept when unquoted. */
function linkDestination(inside: string): string {
  const trimmed = inside.trim()
  const angled = /^<([^>]*)>/.exec(trimmed)
  if (angled) return angled[1] ?? ''
  const titled = /^(\S+)\s+("[^"]*"|'[^']*')$/.exec(trimmed)
  return titled ? (titled[1] ?? '') : trimmed
}

/** What is wrong with each link of the page at `page` (relative to the checkout), one line each. */
function brokenLinks(page: string, read: (path: string) => string | undefined): string[] {
  const markdown = read(page)
  if (markdown === undefined) return [`${page}: not found`]
  const problems: string[] = []
  for (const { line, target } of linksOf(markdown)) {
    const where = `${page}:${line}: ${target}`
    if (/^https?:/i.test(target)) {
      if (!URL.canParse(target) || /\s/.test(target)) problems.push(`${where}: not a well-formed URL`)
      continue
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // mailto: and the like
    const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined]
    const path = pathPart === '' ? page : normalize(join(dirname(page), decodeURIComponent(pathPart)))
    if (path.startsWith('..')) {
      problems.push(`${where}: points outside the repository`)
      continue
    }
    const content = read(path)
    if (content === undefined) {
      problems.push(`${where}: ${path} does not exist`)
      continue
    }
    if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(content).has(decodeURIComponent(anchor))) {
      problems.push(`${where}: ${path} has no heading for #${anchor}`)
    }
  }
  return problems
}

/** A file's text ('' for a folder), or undefined when nothing is there. */
function readCheckout(path: string): string | undefined {
  const absolute = join(root, path)
  if (relative(root, absolute).startsWith('..') || !existsSync(absolute)) return undefined
  return statSync(absolute).isDirectory() ? '' : readFileSync(absolute, 'utf8')
}

describe('GitHub heading slugs', () => {
  it.each([
    ['Quick start', 'quick-start'],
    ['Node.js versions', 'nodejs-versions'],
    ['Mounting in another Hono app, and the package', 'mounting-in-another-hono-app-and-the-package'],
    ['`VAULT_TRUST_PROXY` and `VAULT_PUBLIC_URL`', 'vault_trust_proxy-and-vault_public_url'],
    ['nginx, then [Caddy](https://caddyserver.com)', 'nginx-then-caddy'],
    ['Größe — Übersicht', 'größe--übersicht'],
    ['**Bold** step 1: back up', 'bold-step-1-back-up'],
  ])('%s → #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug)
  })
})

describe('the link checker', () => {
  const pages: Record<string, string> = {
    'docs/a.md': [
      '# Page A',
      '## Setup',
      '## Setup',
      'See [b](b.md#known), [missing](nope.md), [bad anchor](b.md#unknown), [here](#setup-1),',
      '[up](../README.md), [web](https://example.org/x), [broken](https://exa mple.org), `[code](nope.md)`.',
      '<img src="shot.png" alt="a screenshot"> <a href="b.md#known">b</a>',
      '```',
      '[in a fence](nope.md)',
      '```',
    ].join('\n'),
    'docs/b.md': '# B\n## Known\n',
    'README.md': '# R\n',
  }
  const problems = brokenLinks('docs/a.md', (path) => pages[path])

  it('reports a missing file, an unknown anchor and a malformed URL, each once, and nothing in code', () => {
    expect(problems).toEqual([
      'docs/a.md:4: nope.md: docs/nope.md does not exist',
      'docs/a.md:4: b.md#unknown: docs/b.md has no heading for #unknown',
      'docs/a.md:5: https://exa mple.org: not a well-formed URL',
      'docs/a.md:6: shot.png: docs/shot.png does not exist',
    ])
  })
})

describe('the documentation links', () => {
  it.each(documentationPages())('%s: every relative link and anchor resolves', (page) => {
    expect(brokenLinks(page, readCheckout)).toEqual([])
  })
})
