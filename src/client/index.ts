import createClient, { type Client } from 'openapi-fetch'
import type { paths } from './api-types.js'

export type { components, operations, paths } from './api-types.js'

export interface VaultClientOptions {
  /** The vault's base URL, mount path included: `http://nas.local:8080` or `https://example.com/vault`. */
  baseUrl: string
  /** An API key (`mvk_…`) or an access token, sent as `Authorization: Bearer …` on every call. */
  token?: string
  /** A `fetch` of your own (tests, proxies, retries); default: the global one. */
  fetch?: typeof fetch
}

export type VaultClient = Client<paths>

/**
 * A typed client of the vault's API (openapi-fetch over the vault's own OpenAPI document): paths,
 * parameters, bodies and answers are checked by TypeScript. Works in browsers, Node, Deno, Bun and
 * Workers.
 *
 *     const vault = createVaultClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.MODEL_VAULT_API_KEY })
 *     const { data, error } = await vault.GET('/api/v1/models', { params: { query: { q: 'benchy' } } })
 */
export function createVaultClient(options: VaultClientOptions): VaultClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  const { token } = options
  if (token) {
    client.use({
      onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${token}`)
        return request
      },
    })
  }
  return client
}
