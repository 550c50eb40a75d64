/**
 * `model-vault/workers`: the vault on Cloudflare Workers (D1, R2). The default export is a Worker
 * (`main` of wrangler.toml); `createWorkersVault(env)` builds the app to mount in another Worker's
 * Hono app.
 */
export { createWorkersVault, type WorkersVault } from './create-workers-vault.js'
export { default } from './worker.js'
export type { WorkersEnv } from './workers-env.js'
