import type { OpenAPIHono } from '@hono/zod-openapi'
import { createApp } from '../../app.js'
import { ensureFirstSuperuser } from '../../core/accounts/first-superuser.js'
import type { Config, Env } from '../../core/config/config.js'
import { startWebhookDeliverer } from '../../core/events/webhook-deliverer.js'
import { scheduleGarbageCollection } from '../../core/maintenance/collect-garbage.js'
import { startPrinterWatch } from '../../core/printers/printer-watch.js'
import { createJsonLogger, type Logger } from '../../core/runtime/logger.js'
import type { AppDeps, AppEnv } from '../../routes/app-env.js'
import { batchedLines } from './batched-lines.js'
import { nodeServiceIdentity, readNodeConfig } from './node-config.js'
import { createNodeDeps } from './node-deps.js'

export interface NodeVaultOptions {
  /** The configuration; default: read from `env`. */
  config?: Config
  /** `VAULT_*` variables to read the configuration from; default: `process.env`. */
  env?: Env
  /** Where the vault's JSON log lines go; default: stdout. */
  logger?: Logger
}

export interface NodeVault {
  /** The Hono app: serve it, or mount it with `parent.route('/vault', vault.app)`. */
  app: OpenAPIHono<AppEnv>
  deps: AppDeps
  config: Config
  /** Stops the scheduled garbage collection, the webhook deliveries and the printer watch, and closes the database, stores and worker threads. */
  close(): Promise<void>
}

/**
 * A whole vault on Node, as `npm start` runs it: opens (and migrates) the database and stores the
 * configuration names, creates the first superuser on a new install (its password is logged
 * once), schedules the garbage collection and builds the app. Rejects with the cause when the
 * database or storage cannot be used, having released whatever it had opened.
 */
export async function createNodeVault(options: NodeVaultOptions = {}): Promise<NodeVault> {
  const config = options.config ?? readNodeConfig(options.env ?? process.env)
  const logger =
    options.logger ??
    createJsonLogger(
      batchedLines((text) => process.stdout.write(text)),
      { level: config.logLevel },
    )
  const opened = await createNodeDeps(config, { logger, service: nodeServiceIdentity() })
  try {
    await ensureFirstSuperuser(opened.deps, logger, config.admin)
  } catch (error) {
    await opened.close()
    throw error
  }
  const { intervalHours } = config.gc
  const garbageCollection =
    intervalHours > 0
      ? scheduleGarbageCollection(opened.deps, {
          intervalMs: intervalHours * 3_600_000,
          graceMs: opened.deps.gcGraceMs,
        })
      : null
  // Each replica runs one; their leases share the work out, so none is sent twice.
  const webhooks = startWebhookDeliverer(opened.deps, { intervalMs: 5_000 })
  const printerWatch =
    config.printers.watchMs > 0 ? startPrinterWatch(opened.deps, { intervalMs: config.printers.watchMs }) : null
  return {
    app: createApp(opened.deps),
    deps: opened.deps,
    config,
    async close() {
      garbageCollection?.stop()
      await Promise.all([webhooks.stop(), printerWatch?.stop()])
      await opened.close()
    },
  }
}
