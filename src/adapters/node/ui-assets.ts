import { readFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { GetUiAsset, UiAssetEncoding } from '../../core/deps.js'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

/** Compiled, this file sits in `dist/src/adapters/node`; run from source (tsx, vitest), in `src/adapters/node`. */
const defaultRoot = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../../dist/web' : '../../../web', import.meta.url),
)

/** The paths a UI build can contain: plain segments, no `.`/`..`, no backslashes or NULs. */
const isPlainSegment = (segment: string) =>
  segment !== '' && segment !== '.' && segment !== '..' && !/[\\\0]/.test(segment)

/**
 * Serves the built web UI from `root` (default: `dist/web`, where `npm run build` puts it), read
 * from disk on each request so a rebuild needs no restart. Paths that could leave `root` and
 * files that do not exist resolve undefined; other read errors reject.
 */
export function createNodeUiAssets(root = defaultRoot): GetUiAsset {
  return async (path, encodings = []) => {
    const segments = path.split('/')
    if (!segments.every(isPlainSegment)) return undefined
    const type = contentTypes[extname(path)] ?? 'application/octet-stream'
    for (const encoding of encodings) {
      const body = await readIfThere(join(root, ...segments) + encodingSuffixes[encoding])
      if (body) return { body, type, encoding }
    }
    const body = await readIfThere(join(root, ...segments))
    return body && { body, type }
  }
}

/** The build's precompressed copies sit beside each file (`web/precompress-plugin.ts`). */
const encodingSuffixes: Record<UiAssetEncoding, string> = { br: '.br', gzip: '.gz' }

/** The file's bytes; undefined when it does not exist (or is a folder); other errors reject. */
async function readIfThere(file: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    return new Uint8Array(await readFile(file))
  } catch (error) {
    if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined
    throw error
  }
}
