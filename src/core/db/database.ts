import type { Compilable, Kysely } from 'kysely'
import type { HealthCheckable } from '../health/component.js'
import type { SqlDialect } from './dialect.js'
import { ping, readSchemaVersion } from './migrate.js'
import type { Database } from './schema.js'

export type DatabaseKind = 'sqlite' | 'postgres'

/**
 * An open database: the Kysely handle plus what the service needs to know about it.
 * Adapters (`adapters/sqlite`, `adapters/postgres`) build the Kysely dialect and wrap it
 * with `createVaultDatabase`; the core never opens a connection itself.
 */
export interface VaultDatabase extends HealthCheckable {
  readonly db: Kysely<Database>
  readonly kind: DatabaseKind
  /** The SQL the library's queries spell per database (search included). */
  readonly dialect: SqlDialect
  /** A consistent copy of the whole database, taken while it keeps serving writes. */
  snapshot(): Promise<DatabaseSnapshot>
  /**
   * The snapshots `stageRestore` reads, by their name in an archive: SQLite on Node reads its own
   * file and the SQL dump the Workers build writes; D1 only the dump; PostgreSQL its `pg_dump`.
   */
  readonly restorableSnapshots: readonly string[]
  /**
   * Streams a snapshot named `fileName` (one of `restorableSnapshots`) into a scratch place;
   * nothing live changes until the staged database is swapped in.
   */
  stageRestore(fileName: string, body: ReadableStream<Uint8Array>): Promise<StagedDatabase>
  close(): Promise<void>
}

/**
 * Statements run against the restored data inside the swap's atomic step. They are built
 * with literal values (`sql.lit`), because PostgreSQL runs them inside a `psql` script, and
 * must suit every schema version a backup can have (they run before migrations).
 */
export type RestoreStatements = (db: Kysely<Database>) => Compilable[]

/** A database restored into staging, ready to replace the live one. */
export interface StagedDatabase {
  /**
   * Replaces the live data with the staged data in one atomic step, running `statements` on
   * the staged data first. On any failure, a killed process included, the live database is
   * exactly as it was. Afterwards the same `VaultDatabase.db` handle serves the restored data.
   */
  swapIn(statements: RestoreStatements): Promise<void>
  /** Removes the staged copy. */
  discard(): Promise<void>
}

/**
 * A snapshot's name inside a backup archive (`db/<name>`): an SQLite file, the SQL dump of a D1
 * database (core/backup/sql-dump.ts), or a `pg_dump` custom-format dump.
 */
export const snapshotFileNames = { sqlite: 'vault.sqlite', sqlDump: 'vault.sql', postgres: 'vault.pgdump' } as const

export interface SnapshotCounts {
  users: number
  models: number
  files: number
}

/** The rows a backup manifest counts, read through `db` (a snapshot's own view of the data). */
export async function countSnapshotRows(db: Kysely<Database>): Promise<SnapshotCounts> {
  const count = async (table: 'users' | 'models' | 'files') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return { users: await count('users'), models: await count('models'), files: await count('files') }
}

/** A database copy in a scratch place: an SQLite file, a SQL dump, or a `pg_dump` custom-format dump. */
export interface DatabaseSnapshot {
  /** One of `snapshotFileNames`: its name inside a backup archive. */
  fileName: string
  size: number
  /** Rows in the copy itself (not the live database, which goes on changing). */
  counts: SnapshotCounts
  stream(): ReadableStream<Uint8Array>
  /** Removes the scratch file. */
  dispose(): Promise<void>
}

/** Wraps an adapter's Kysely handle, dialect and copy functions into a `VaultDatabase` with a health check. */
export function createVaultDatabase(
  db: Kysely<Database>,
  kind: DatabaseKind,
  parts: Pick<VaultDatabase, 'dialect' | 'snapshot' | 'restorableSnapshots' | 'stageRestore'>,
): VaultDatabase {
  return {
    db,
    kind,
    ...parts,
    async checkHealth() {
      const started = performance.now()
      await ping(db)
      const latencyMs = Math.round((performance.now() - started) * 10) / 10
      return { status: 'pass', details: { kind, schema_version: await readSchemaVersion(db), latency_ms: latencyMs } }
    },
    close: () => db.destroy(),
  }
}
