/** How a UI build may hold a file compressed ahead of time, besides as it is. */
export type UiAssetEncoding = 'br' | 'gzip'

/** A file's bytes, and how `body` is encoded (absent: as it is). */
export interface EncodedAsset {
  body: Uint8Array<ArrayBuffer>
  encoding?: UiAssetEncoding
}

/** Static files of the API reference viewers (Swagger UI, ReDoc), served without a CDN. */
export type DocsAssetName = 'swagger-ui.css' | 'swagger-ui-bundle.js' | 'redoc.standalone.js'
/**
 * Reads a viewer's file in the first of `encodings` the runtime holds it in (Brotli or gzip,
 * compressed once), else as it is. Rejects where the runtime has no such files.
 */
export type GetDocsAsset = (name: DocsAssetName, encodings?: readonly UiAssetEncoding[]) => Promise<EncodedAsset>

/** A file of the built web UI, its `Content-Type`, and how `body` is encoded (absent: as it is). */
export interface UiAsset extends EncodedAsset {
  type: string
}
/**
 * Reads a file of the built web UI by its path relative to the build's root (`index.html`,
 * `assets/index-3f2a.js`): the first of `encodings` the build holds it in, else as it is.
 * Resolves undefined when there is no such file, when the path would leave the build's root, or
 * when the UI was not built.
 */
export type GetUiAsset = (path: string, encodings?: readonly UiAssetEncoding[]) => Promise<UiAsset | undefined>

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
