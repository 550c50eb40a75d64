import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { GetUiAsset } from '../../core/ui-files.js'
import { isPlainUiPath, uiContentType, uiEncodingSuffixes } from '../../core/ui-files.js'

/** Compiled, this file sits in `dist/src/adapters/node`; run from source (tsx, vitest), in `src/adapters/node`. */
const defaultRoot = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../../dist/web' : '../../../web', import.meta.url),
)

/**
 * Serves the built web UI from `root` (default: `dist/web`, where `npm run build` puts it), read
 * from disk on each request so a rebuild needs no restart. Paths that could leave `root` and
 * files that do not exist resolve undefined; other read errors reject.
 */
export function createNodeUiAssets(root = defaultRoot): GetUiAsset {
  return async (path, encodings = []) => {
    if (!isPlainUiPath(path)) return undefined
    const segments = path.split('/')
    const type = uiContentType(path)
    for (const encoding of encodings) {
      const body = await readIfThere(join(root, ...segments) + uiEncodingSuffixes[encoding])
      if (body) return { body, type, encoding }
    }
    const body = await readIfThere(join(root, ...segments))
    return body && { body, type }
  }
}

/** The file's bytes; undefined when it does not exist (or is a folder); other errors reject. */
async function readIfThere(file: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    return new Uint8Array(await readFile(file))
  } catch (error) {
    if (['ENOENT', 'EISDIR', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined
    throw error
  }
}
