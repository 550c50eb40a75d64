import type { D1Database, Fetcher, R2Bucket } from '@cloudflare/workers-types'

/**
 * The bindings and variables a model-vault Worker gets (wrangler.example.toml): the D1 database,
 * the R2 bucket for blobs and thumbnails, optionally the static assets (web UI, API reference
 * viewers), and the `VAULT_*` variables and secrets, read as on Node.
 */
export interface WorkersEnv {
  DB: D1Database
  BUCKET: R2Bucket
  ASSETS?: Fetcher
  [variable: `VAULT_${string}`]: string | undefined
}

/** The `VAULT_*` string variables of `env`, leaving the bindings out. */
export function vaultVariables(env: WorkersEnv): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name, value]) => name.startsWith('VAULT_') && typeof value === 'string'),
  )
}
