import { serve } from '@hono/node-server'
import { createJsonLogger } from '../../core/runtime/logger.js'
import { batchedLines } from './batched-lines.js'
import { createNodeVault, type NodeVault } from './create-node-vault.js'
import { lingerOnEarlyAnswers } from './lingering-close.js'
import { describeStartupError, exitWith, readNodeConfigOrExit } from './node-config.js'

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const shutdownGraceMs = 10_000

/**
 * The Node entry: `npm start`. Reads `VAULT_*` from the environment, opens the database and
 * stores, serves HTTP, and shuts down cleanly on SIGTERM/SIGINT. Start-up failures print one
 * clear line and exit 1; they never dump a stack trace.
 */
async function main(): Promise<void> {
  // stdout is written synchronously (files, pipes and terminals on Linux): one write per turn, not per line.
  const logger = createJsonLogger(batchedLines((text) => process.stdout.write(text)))
  const config = readNodeConfigOrExit(process.env)

  let vault: NodeVault
  try {
    vault = await createNodeVault({ config, logger })
  } catch (error) {
    exitWith(`Start-up failed: ${describeStartupError(error, config)}`)
  }

  const fetch = lingerOnEarlyAnswers(vault.app.fetch)
  const server = serve({ fetch, hostname: config.host, port: config.port }, (info) => {
    logger.info('listening', {
      url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
      version: vault.deps.service.version,
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
    setTimeout(() => {
      logger.warn('shutdown grace period over; exiting with requests still open')
      process.exit(1)
    }, shutdownGraceMs).unref()
    server.close(async () => {
      await vault.close()
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
