import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { DocsAssetName, EncodedAsset, GetDocsAsset, UiAssetEncoding } from '../../core/ui-files.js'

const require = createRequire(import.meta.url)

const assetFiles: Record<DocsAssetName, string> = {
  'swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
  'swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
  'redoc.standalone.js': 'redoc/bundles/redoc.standalone.js',
}

/**
 * ReDoc's footer always shows Redocly's logo from their CDN, with no option to turn it off. An
 * empty `data:` image fails to load at once, which ReDoc answers by leaving the logo out.
 */
const redocLogo = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg/g

/** One viewer file as the vault serves it, from the installed npm package: nothing in it reaches another host. */
export async function readDocsAsset(name: DocsAssetName): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await readFile(require.resolve(assetFiles[name]))
  if (name !== 'redoc.standalone.js') return new Uint8Array(bytes)
  return new TextEncoder().encode(bytes.toString('utf8').replace(redocLogo, 'data:,'))
}

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/** `bytes` compressed for serving many times: Brotli at a quality that takes well under a second for 1.5 MB. */
export async function compressDocsAsset(
  bytes: Uint8Array,
  encoding: UiAssetEncoding,
): Promise<Uint8Array<ArrayBuffer>> {
  const compressed =
    encoding === 'br'
      ? await brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } })
      : await gzipped(bytes, { level: 9 })
  return new Uint8Array(compressed)
}

/**
 * Reads the viewers' assets once each and compresses each once per encoding asked for (on the
 * thread pool), then serves them from memory.
 */
export function createNodeDocsAssets(): GetDocsAsset {
  const cache = new Map<string, Promise<EncodedAsset>>()
  const cached = (key: string, make: () => Promise<EncodedAsset>) => {
    let asset = cache.get(key)
    if (!asset) {
      asset = make()
      cache.set(key, asset)
    }
    return asset
  }
  const plain = (name: DocsAssetName) => cached(name, async () => ({ body: await readDocsAsset(name) }))
  return (name, encodings = []) => {
    const encoding = encodings[0]
    if (!encoding) return plain(name)
    return cached(`${name}.${encoding}`, async () => ({
      body: await compressDocsAsset((await plain(name)).body, encoding),
      encoding,
    }))
  }
}
