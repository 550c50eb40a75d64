import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { createVaultDatabase, snapshotFileNames, type VaultDatabase } from '../../core/db/database.js'
import { guardWrites, type WriteGuard } from '../../core/db/guarded-writes.js'
import type { Database } from '../../core/db/schema.js'
import { pgDumpSnapshot } from './pg-dump.js'
import { stagePgRestore } from './pg-restore.js'
import { postgresDialect } from './postgres-dialect.js'

/** PostgreSQL returns int8 and numeric as strings; our integers fit in a JS number. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
}

/**
 * Connects a pool to PostgreSQL, its sessions without parallel query. Connection errors surface on
 * first use (health, migrations); an idle client's error goes to `onIdleError` instead of crashing
 * the process. Snapshots are `pg_dump` runs; restores replay one with `pg_restore` and `psql` in
 * one transaction. Every write commits only past `writeGuard`, when given (core/db/guarded-writes.ts).
 */
export function openPostgresDatabase(
  url: string,
  options: { scratchDir: string; onIdleError: (error: Error) => void; writeGuard?: WriteGuard },
): VaultDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    types,
  })
  // No parallel workers: the service's statements are pages walked until full, which workers
  // only split (each walks its own share for a whole page) after a start-up that cost a page
  // of models with a tag 70 of its 83 ms at a million models on 2 busy cores (docs/benchmarks.md).
  // Set on each new session rather than as a startup option, which PgBouncer refuses; the client
  // runs it before any query of the pool's (if it fails, the connection is broken and its next query says so).
  pool.on('connect', (client) => void client.query('set max_parallel_workers_per_gather = 0').catch(() => {}))
  pool.on('error', options.onIdleError)
  const dialect = new PostgresDialect({ pool })
  const db = new Kysely<Database>({
    dialect: options.writeGuard ? guardWrites(dialect, postgresDialect, options.writeGuard) : dialect,
  })
  return createVaultDatabase(db, 'postgres', {
    dialect: postgresDialect,
    snapshot: () => pgDumpSnapshot(url, db, options.scratchDir),
    restorableSnapshots: [snapshotFileNames.postgres],
    stageRestore: (_fileName, body) => stagePgRestore(url, db, options.scratchDir, body),
  })
}
