import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { createVaultDatabase, snapshotFileNames, type VaultDatabase } from '../../core/db/database.js'
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
 * Connects a pool to PostgreSQL. Connection errors surface on first use (health, migrations);
 * an idle client's error goes to `onIdleError` instead of crashing the process. Snapshots
 * are `pg_dump` runs; restores replay one with `pg_restore` and `psql` in one transaction.
 */
export function openPostgresDatabase(
  url: string,
  options: { scratchDir: string; onIdleError: (error: Error) => void },
): VaultDatabase {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, types })
  pool.on('error', options.onIdleError)
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return createVaultDatabase(db, 'postgres', {
    dialect: postgresDialect,
    snapshot: () => pgDumpSnapshot(url, db, options.scratchDir),
    restorableSnapshots: [snapshotFileNames.postgres],
    stageRestore: (_fileName, body) => stagePgRestore(url, db, options.scratchDir, body),
  })
}
