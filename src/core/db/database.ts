import type { Kysely } from 'kysely'
import type { HealthCheckable } from '../health/component.js'
import type { Database } from './schema.js'
import { ping, readSchemaVersion } from './migrate.js'

export type DatabaseKind = 'sqlite' | 'postgres'

/**
 * An open database: the Kysely handle plus what the service needs to know about it.
 * Adapters (`adapters/sqlite`, `adapters/postgres`) build the Kysely dialect and wrap it
 * with `createVaultDatabase`; the core never opens a connection itself.
 */
export interface VaultDatabase extends HealthCheckable {
  readonly db: Kysely<Database>
  readonly kind: DatabaseKind
  /** A consistent copy of the whole database, taken while it keeps serving writes. */
  snapshot(): Promise<DatabaseSnapshot>
  close(): Promise<void>
}

/** A database copy in a scratch file: an SQLite file, or a `pg_dump` custom-format dump. */
export interface DatabaseSnapshot {
  /** `vault.sqlite` or `vault.pgdump`: its name inside a backup archive. */
  fileName: string
  size: number
  stream(): ReadableStream<Uint8Array>
  /** Removes the scratch file. */
  dispose(): Promise<void>
}

export function createVaultDatabase(db: Kysely<Database>, kind: DatabaseKind, snapshot: () => Promise<DatabaseSnapshot>): VaultDatabase {
  return {
    db,
    kind,
    snapshot,
    async checkHealth() {
      const started = performance.now()
      await ping(db)
      const latencyMs = Math.round((performance.now() - started) * 10) / 10
      return { status: 'pass', details: { kind, schema_version: await readSchemaVersion(db), latency_ms: latencyMs } }
    },
    close: () => db.destroy(),
  }
}
