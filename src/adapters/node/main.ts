import { serve } from '@hono/node-server'
import { resolve } from 'node:path'
import { createApp } from '../../app.js'
import { ConfigError, parseConfig, type Config } from '../../core/config/config.js'
import { createJsonLogger } from '../../core/runtime/logger.js'
import packageJson from '../../../package.json' with { type: 'json' }
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
  let config: Config
  try {
    config = resolvePaths(parseConfig(process.env))
  } catch (error) {
    if (error instanceof ConfigError) return exitWith(error.message)
    throw error
  }

  const service = {
    name: 'model-vault',
    version: packageJson.version,
    instanceId: crypto.randomUUID(),
    startedAt: new Date().toISOString(),
  }
  let opened: Awaited<ReturnType<typeof createNodeDeps>>
  try {
    opened = await createNodeDeps(config, { logger, service })
  } catch (error) {
    return exitWith(`Start-up failed: ${describeStartupError(error, config)}`)
  }

  const app = createApp(opened.deps)
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
    logger.info('listening', { url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`, version: service.version })
  })
  server.on('error', (error: NodeJS.ErrnoException) => {
    exitWith(`Cannot listen on ${config.host}:${config.port} (${error.code ?? error.message}); set VAULT_HOST / VAULT_PORT.`)
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

/** Relative directories in the environment are taken relative to the working directory. */
function resolvePaths(config: Config): Config {
  return {
    ...config,
    dataDir: resolve(config.dataDir),
    database: config.database.kind === 'sqlite' ? { kind: 'sqlite', file: resolve(config.database.file) } : config.database,
    storage:
      config.storage.kind === 'local'
        ? { kind: 'local', blobDir: resolve(config.storage.blobDir), thumbnailDir: resolve(config.storage.thumbnailDir) }
        : config.storage,
    backup: { ...config.backup, dir: resolve(config.backup.dir) },
  }
}

const filesystemErrors = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EEXIST', 'EISDIR'])

/** A start-up error in one line that says what to change, without a stack trace. */
function describeStartupError(error: unknown, config: Config): string {
  const code = (error as NodeJS.ErrnoException)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (code && filesystemErrors.has(code)) {
    return `${message}. Check that VAULT_DATA_DIR (${config.dataDir}) and VAULT_BACKUP_DIR name writable directories.`
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === '28P01' || code === '3D000') {
    return `cannot use the database (${code}): check VAULT_DATABASE_URL.`
  }
  return message
}

function exitWith(message: string): void {
  process.stderr.write(`model-vault: ${message}\n`)
  process.exit(1)
}

await main()
