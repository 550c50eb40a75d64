import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { DocsAssetName, GetDocsAsset } from '../../core/deps.js'

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

/** Reads the viewers' assets once each, then serves them from memory. */
export function createNodeDocsAssets(): GetDocsAsset {
  const cache = new Map<DocsAssetName, Promise<Uint8Array<ArrayBuffer>>>()
  return (name) => {
    let asset = cache.get(name)
    if (!asset) {
      asset = readDocsAsset(name)
      cache.set(name, asset)
    }
    return asset
  }
}
