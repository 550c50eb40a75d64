import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { errorCatalogue } from '../../core/errors.js'
import { createJsonLogger } from '../../core/runtime/logger.js'
import { batchedLines } from './batched-lines.js'
import { createNodeVault, type NodeVault } from './create-node-vault.js'
import { type FetchHandler, lingerOnEarlyAnswers } from './lingering-close.js'
import { describeStartupError, exitWith, readNodeConfigOrExit } from './node-config.js'

/** What a request gets while the database is opened and migrated, before the app exists. */
const startingAnswer = () =>
  Response.json(
    {
      type: 'about:blank',
      ...errorCatalogue.starting,
      code: 'starting',
      detail: 'The vault is starting; try again in a moment.',
    },
    {
      status: errorCatalogue.starting.status,
      headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '1' },
    },
  )

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const shutdownGraceMs = 10_000

/**
 * The Node entry: `npm start`. Reads `VAULT_*` from the environment, opens the database and
 * stores, serves HTTP, and shuts down cleanly on SIGTERM/SIGINT. Start-up failures print one
 * clear line and exit 1; they never dump a stack trace.
 */
async function main(): Promise<void> {
  // stdout is written synchronously (files, pipes and terminals on Linux): one write per turn, not per line.
  const config = readNodeConfigOrExit(process.env)
  const logger = createJsonLogger(
    batchedLines((text) => process.stdout.write(text)),
    { level: config.logLevel },
  )

  // The port is taken before anything is created: a start that cannot listen must not make the
  // first superuser and print its one-time password after the error, leaving the next start none.
  let answer: FetchHandler = () => startingAnswer()
  const server = serve({
    fetch: lingerOnEarlyAnswers((request, env) => answer(request, env)),
    hostname: config.host,
    port: config.port,
  })
  server.on('error', (error: NodeJS.ErrnoException) => {
    exitWith(
      `Cannot listen on ${config.host}:${config.port} (${error.code ?? error.message}); set VAULT_HOST / VAULT_PORT.`,
    )
  })
  await once(server, 'listening')

  let vault: NodeVault
  try {
    vault = await createNodeVault({ config, logger })
  } catch (error) {
    exitWith(`Start-up failed: ${describeStartupError(error, config)}`)
  }
  answer = vault.app.fetch
  const address = server.address() as AddressInfo
  logger.info('listening', {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    version: vault.deps.service.version,
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
