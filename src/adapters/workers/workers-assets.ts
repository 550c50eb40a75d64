import type { Fetcher } from '@cloudflare/workers-types'
import { VaultError } from '../../core/errors.js'
import type { DocsAssetName, GetDocsAsset, GetUiAsset } from '../../core/ui-files.js'
import { isPlainUiPath, uiContentType, uiEncodingSuffixes } from '../../core/ui-files.js'

/** Where `scripts/build-workers.ts` puts the API reference viewers' files in the assets directory. */
export const docsAssetsDir = '_vault-docs'

/**
 * The web UI and the API reference viewers' files from the Worker's static assets binding
 * (`[assets]` in wrangler.toml, with `run_worker_first` so every request reaches the vault and the
 * binding is only read through it). Without the binding the UI is absent (404s, as on a Node
 * install without a UI build) and the viewers answer 501.
 */
export function createWorkersAssets(assets: Fetcher | undefined): {
  getUiAsset: GetUiAsset
  getDocsAsset: GetDocsAsset
} {
  const read = async (path: string): Promise<Uint8Array<ArrayBuffer> | undefined> => {
    if (!assets) return undefined
    const response = await assets.fetch(`https://assets.invalid/${path}`)
    if (response.status === 404) return undefined
    if (!response.ok) throw new Error(`the static assets binding answered ${response.status} for ${path}`)
    return new Uint8Array(await response.arrayBuffer())
  }
  return {
    async getUiAsset(path, encodings = []) {
      if (!isPlainUiPath(path)) return undefined
      const type = uiContentType(path)
      for (const encoding of encodings) {
        const body = await read(`${path}${uiEncodingSuffixes[encoding]}`)
        if (body) return { body, type, encoding }
      }
      const body = await read(path)
      return body && { body, type }
    },
    async getDocsAsset(name: DocsAssetName, encodings = []) {
      for (const encoding of encodings) {
        const body = await read(`${docsAssetsDir}/${name}${uiEncodingSuffixes[encoding]}`)
        if (body) return { body, encoding }
      }
      const body = await read(`${docsAssetsDir}/${name}`)
      if (!body) {
        throw new VaultError(
          'not_supported_on_this_runtime',
          `The API reference viewers' files are served from the Worker's static assets, and this deployment has none (${name}); /openapi.json works.`,
        )
      }
      return { body }
    },
  }
}
