import type { VaultDatabase } from '../db/database.js'
import type { Metrics } from '../metrics/metrics.js'
import type { Clock } from './clock.js'
import type { Logger } from './logger.js'
import type { ProcessLiveness } from './process-liveness.js'

/** Who is answering: reported by health so a failing replica can be told apart. */
export interface ServiceIdentity {
  name: string
  version: string
  /** Random per process. */
  instanceId: string
  startedAt: string
}

/**
 * What every part of the core may take from its runtime: who is answering, the database, time,
 * logs, process liveness and metrics. Each core module declares its own dependencies from these
 * and its own ports (kysely composes its `Dialect` from small interfaces the same way); the
 * runtime entries assemble them all into one `Deps` (`deps.ts`).
 */
export interface RuntimeDeps {
  service: ServiceIdentity
  database: VaultDatabase
  clock: Clock
  /**
   * This process's host and pid, and whether another process of the host still runs: a lock
   * whose holder is gone is taken over at once. Null where the runtime cannot tell; such locks
   * are taken over once their lease lapses.
   */
  liveness: ProcessLiveness | null
  logger: Logger
  /** Request and upload counters for `/metrics`; absent when metrics are off (`VAULT_METRICS_TOKEN` unset). */
  metrics?: Metrics
}
