import { serve } from '@hono/node-server'
import { createApp } from '../../app.js'
import { ensureFirstSuperuser } from '../../core/accounts/first-superuser.js'
import { scheduleGarbageCollection } from '../../core/maintenance/collect-garbage.js'
import { createJsonLogger } from '../../core/runtime/logger.js'
import { lingerOnEarlyAnswers } from './lingering-close.js'
import { describeStartupError, exitWith, nodeServiceIdentity, readNodeConfigOrExit } from './node-config.js'
import { createNodeDeps } from './node-deps.js'

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const shutdownGraceMs = 10_000

/**
 * The Node entry: `npm start`. Reads `VAULT_*` from the environment, opens the database and
 * stores, serves HTTP, and shuts down cleanly on SIGTERM/SIGINT. Start-up failures print one
 * clear line and exit 1; they never dump a stack trace.
 */
async function main(): Promise<void> {
  const logger = createJsonLogger((line) => process.stdout.write(line))
  const config = readNodeConfigOrExit(process.env)

  const service = nodeServiceIdentity()
  let opened: Awaited<ReturnType<typeof createNodeDeps>>
  try {
    opened = await createNodeDeps(config, { logger, service })
    await ensureFirstSuperuser(opened.deps, logger, config.admin)
  } catch (error) {
    exitWith(`Start-up failed: ${describeStartupError(error, config)}`)
  }

  const app = createApp(opened.deps)
  const { intervalHours } = config.gc
  const garbageCollection =
    intervalHours > 0
      ? scheduleGarbageCollection(opened.deps, {
          intervalMs: intervalHours * 3_600_000,
          graceMs: opened.deps.gcGraceMs,
        })
      : null
  const fetch = lingerOnEarlyAnswers(app.fetch)
  const server = serve({ fetch, hostname: config.host, port: config.port }, (info) => {
    logger.info('listening', {
      url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
      version: service.version,
    })
  })
  server.on('error', (error: NodeJS.ErrnoException) => {
    exitWith(
      `Cannot listen on ${config.host}:${config.port} (${error.code ?? error.message}); set VAULT_HOST / VAULT_PORT.`,
    )
  })

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('shutting down', { signal })
    garbageCollection?.stop()
    setTimeout(() => {
      logger.warn('shutdown grace period over; exiting with requests still open')
      process.exit(1)
    }, shutdownGraceMs).unref()
    server.close(async () => {
      await opened.close()
      logger.info('stopped')
      process.exit(0)
    })
    // Idle keep-alive sockets would otherwise hold `close` open until they time out.
    if ('closeIdleConnections' in server) server.closeIdleConnections()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

await main()
