import type { UiAssetEncoding } from './deps.js'

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

/** The `Content-Type` of a file of the web UI build, by its extension. */
export function uiContentType(path: string): string {
  const extension = /\.[^./]+$/.exec(path)?.[0] ?? ''
  return contentTypes[extension] ?? 'application/octet-stream'
}

/** The build's precompressed copies sit beside each file (`web/precompress-plugin.ts`). */
export const uiEncodingSuffixes: Record<UiAssetEncoding, string> = { br: '.br', gzip: '.gz' }

/** The paths a UI build can contain: plain segments, no `.`/`..`, no backslashes or NULs. */
export const isPlainUiPath = (path: string) =>
  path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..' && !/[\\\0]/.test(segment))
