import { type Kysely, Migrator, sql } from 'kysely'
import { migrations } from './migrations/index.js'
import type { Database } from './schema.js'

/** The schema version a fully migrated database has: the number of the newest migration. */
export const latestSchemaVersion = schemaVersionOf(Object.keys(migrations).at(-1))

function schemaVersionOf(migrationName: string | undefined): number {
  return migrationName ? Number.parseInt(migrationName, 10) : 0
}

/**
 * Brings the schema up to date and returns its version. Kysely's migrator records applied
 * migrations in `kysely_migration` and takes a lock, so processes starting together apply
 * each migration once. A database newer than this build is refused rather than touched.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<number> {
  await refuseNewerSchema(db)
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    throw new Error(
      `database migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    )
  }
  return readSchemaVersion(db)
}

/** The version of the newest migration applied to `db` (0 for an empty database). */
export async function readSchemaVersion(db: Kysely<Database>): Promise<number> {
  const applied = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).getMigrations()
  return schemaVersionOf(applied.filter((m) => m.executedAt).at(-1)?.name)
}

async function refuseNewerSchema(db: Kysely<Database>): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
  if (!tables.some((t) => t.name === 'kysely_migration')) return
  const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db)
  const unknown = rows.rows.map((r) => r.name).filter((name) => !(name in migrations))
  if (unknown.length > 0) {
    throw new Error(
      `the database has schema version ${Math.max(...unknown.map(schemaVersionOf))}, newer than this build supports (${latestSchemaVersion}); upgrade model-vault or restore an older backup`,
    )
  }
}

/** Round-trips a trivial query, for health checks. */
export async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db)
}
