import type { ExecutionContext, ScheduledController } from '@cloudflare/workers-types'
import { collectGarbage } from '../../core/maintenance/collect-garbage.js'
import { createWorkersVault, type WorkersVault } from './create-workers-vault.js'
import type { WorkersEnv } from './workers-env.js'

/**
 * One vault per isolate, built at its first request (migrations and key loading run once). A
 * failed start is not kept: the next request tries again (two isolates migrating a new D1 database
 * at once can make one of them fail once).
 */
let vault: Promise<WorkersVault> | undefined
function vaultOf(env: WorkersEnv): Promise<WorkersVault> {
  vault ??= createWorkersVault(env).catch((error: unknown) => {
    vault = undefined
    throw error
  })
  return vault
}

/**
 * The Worker: `main` of wrangler.toml. `fetch` serves the vault; `scheduled` (a cron trigger)
 * collects garbage, as the Node service does every `VAULT_GC_INTERVAL_HOURS`.
 */
export default {
  async fetch(request: Request, env: WorkersEnv, context: ExecutionContext): Promise<Response> {
    const { app } = await vaultOf(env)
    return app.fetch(request, env, context)
  },
  async scheduled(_controller: ScheduledController, env: WorkersEnv): Promise<void> {
    const { deps } = await vaultOf(env)
    const report = await collectGarbage(deps, { dryRun: false, graceMs: deps.gcGraceMs })
    deps.logger.info('garbage collected', { ...report })
  },
}
