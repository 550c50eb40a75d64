import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { DocsAssetName, GetDocsAsset } from '../../core/deps.js'

const require = createRequire(import.meta.url)

const assetFiles: Record<DocsAssetName, string> = {
  'swagger-ui.css': 'swagger-ui-dist/swagger-ui.css',
  'swagger-ui-bundle.js': 'swagger-ui-dist/swagger-ui-bundle.js',
  'redoc.standalone.js': 'redoc/bundles/redoc.standalone.js',
}

/** Reads the viewers' assets from the installed npm packages, once each, then serves them from memory. */
export function createNodeDocsAssets(): GetDocsAsset {
  const cache = new Map<DocsAssetName, Promise<Uint8Array<ArrayBuffer>>>()
  return (name) => {
    let asset = cache.get(name)
    if (!asset) {
      asset = readFile(require.resolve(assetFiles[name])).then((buffer) => new Uint8Array(buffer))
      cache.set(name, asset)
    }
    return asset
  }
}
