import { mkdtemp, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerType, serve } from '@hono/node-server'
import { afterAll, beforeAll } from 'vitest'
import { lingerOnEarlyAnswers } from '../../src/adapters/node/lingering-close.js'
import { createNodeDeps } from '../../src/adapters/node/node-deps.js'
import { createScryptPasswordHasher } from '../../src/adapters/node/scrypt-password-hasher.js'
import { createApp } from '../../src/app.js'
import { ensureFirstSuperuser } from '../../src/core/accounts/first-superuser.js'
import { parseConfig } from '../../src/core/config/config.js'
import type { Clock } from '../../src/core/runtime/clock.js'
import { createJsonLogger, type Logger } from '../../src/core/runtime/logger.js'
import type { AppDeps } from '../../src/routes/app-env.js'
import { adminEnv, inProcessAuthorization } from './accounts.js'
import { createTestDatabase } from './test-database.js'

export interface InProcessVault {
  app: ReturnType<typeof createApp>
  deps: AppDeps
  dataDir: string
  databaseUrl: string
  /** Log lines the vault wrote, parsed. */
  logs: Record<string, unknown>[]
  close(): Promise<void>
}

export interface TestVault extends InProcessVault {
  /** `http://127.0.0.1:<port>`: the vault over a real loopback socket. */
  baseUrl: string
}

export interface TestVaultOptions {
  /** Another instance of an existing test vault (same data directory and database), as a second process would be. */
  shareWith?: InProcessVault
  /** The vault's clock; the system clock by default. */
  clock?: Clock
}

/**
 * A complete vault built the way `npm start` builds it (same config parsing, same adapters), on a
 * temporary data directory and a fresh database of this test project's kind, with no socket:
 * requests go through `vault.app.request()`, as in Hono's own tests. `env` adds or overrides
 * `VAULT_*` variables.
 */
export async function createTestVault(
  env: Record<string, string> = {},
  options: TestVaultOptions = {},
): Promise<InProcessVault> {
  const shared = options.shareWith
  const dataDir = shared?.dataDir ?? (await mkdtemp(join(tmpdir(), 'vault-test-')))
  const database = shared
    ? { url: shared.databaseUrl, drop: async () => {} }
    : await createTestDatabase(dataDir, { migrated: true })
  const logs: Record<string, unknown>[] = []
  const logger: Logger = createJsonLogger((line) => void logs.push(JSON.parse(line)), { level: 'debug' })
  const config = parseConfig({ VAULT_DATA_DIR: dataDir, VAULT_DATABASE_URL: database.url, ...env })
  const service = {
    name: 'model-vault',
    version: '0.0.0-test',
    instanceId: crypto.randomUUID(),
    startedAt: new Date().toISOString(),
  }
  const { deps, close } = await createNodeDeps(config, {
    logger,
    service,
    passwordHasher: testPasswordHasher,
    ...(options.clock ? { clock: options.clock } : {}),
  })
  await ensureFirstSuperuser(deps, logger, config.admin)
  return {
    app: createApp(deps),
    deps,
    dataDir,
    databaseUrl: database.url,
    logs,
    async close() {
      await close()
      await database.drop()
      if (!shared) await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * For one test file of in-process route tests: a vault (with `env`, the superuser by default)
 * built before its tests and closed after them, and the superuser's `Authorization` header. Read
 * both inside tests.
 */
export function setUpInProcessSuite(env: Record<string, string> = adminEnv): {
  vault: InProcessVault
  authorization: string
} {
  // Filled in by beforeAll, before any test reads it.
  const suite = {} as { vault: InProcessVault; authorization: string }
  beforeAll(async () => {
    suite.vault = await createTestVault(env)
    suite.authorization = await inProcessAuthorization(suite.vault)
  })
  afterAll(() => suite.vault?.close())
  return suite
}

/** Removes one of the vault's data folders, as a lost or unmounted volume leaves it. */
export const removeDataFolder = (vault: InProcessVault, folder: 'blobs' | 'thumbs' | 'backups') =>
  rm(join(vault.dataDir, folder), { recursive: true, force: true })

/**
 * A test vault (`createTestVault`) served over a real loopback socket, for tests whose subject is
 * the HTTP server: sockets, streamed and cut bodies, clients that are separate processes.
 */
export async function startTestVault(
  env: Record<string, string> = {},
  options: TestVaultOptions = {},
): Promise<TestVault> {
  const vault = await createTestVault(env, options)
  const { server, port } = await listen(vault.app.fetch)
  return {
    ...vault,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        // The test is over: connections fetch keeps alive (up to 60 s, below) must not hold the close.
        ;(server as Server).closeAllConnections()
      })
      await vault.close()
    },
  }
}

/**
 * scrypt at 1/32 of OWASP's memory and 1/3 of its passes: hashes keep their real format and every
 * code path, and a vault's start and each sign-in cost about a millisecond instead of 0.4 s of CPU.
 * The production cost has its own test beside the hasher.
 */
const testPasswordHasher = createScryptPasswordHasher({ ln: 10, r: 8, p: 1 })

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: lingerOnEarlyAnswers(fetch), hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ server, port: info.port }),
    )
    // The vault shares its thread with the test, and a test that slices with the real prusa-slicer
    // blocks that thread for seconds. Past Node's 5 s keep-alive the server would close an idle
    // connection just as fetch (4 s keep-alive) reuses it: ECONNRESET. The client closes first now.
    ;(server as Server).keepAliveTimeout = 60_000
  })
}
