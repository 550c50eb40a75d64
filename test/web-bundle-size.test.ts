import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ensureBuilt } from './support/built-vault.js'

/** The budget for the JavaScript a browser loads before the library's first cards. */
const budgetBytes = 250 * 1024

describe('the web UI build', () => {
  it('loads the library route with under 250 KB of gzipped JavaScript; three.js and charts come later', async () => {
    const web = join(await ensureBuilt(), 'web')
    const html = await readFile(join(web, 'index.html'), 'utf8')
    // The entry script and everything it preloads: what every first visit downloads.
    const initial = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((match) => match[1] as string)
    expect(initial.length).toBeGreaterThan(0)
    const contents = await Promise.all(initial.map((file) => readFile(join(web, file))))
    const gzipped = contents.reduce((total, bytes) => total + gzipSync(bytes, { level: 9 }).length, 0)
    expect(gzipped, `${initial.join(', ')}: ${gzipped} bytes gzipped`).toBeLessThan(budgetBytes)
    const initialText = contents.map((bytes) => bytes.toString('utf8')).join('\n')
    expect(initialText).not.toContain('WebGLRenderer')
    expect(initialText).not.toContain('recharts')
    // The build holds Brotli and gzip copies of each, which the vault serves to clients that take them.
    for (const [index, file] of initial.entries()) {
      expect(brotliDecompressSync(await readFile(join(web, `${file}.br`))), file).toEqual(contents[index])
      expect(gunzipSync(await readFile(join(web, `${file}.gz`))), file).toEqual(contents[index])
    }
  }, 240_000)
})
