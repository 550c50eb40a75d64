import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { openPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js'
import { migrateToLatest } from '../../src/core/db/migrate.js'
import { startThrowawayPostgres } from './throwaway-postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the throwaway PostgreSQL server, or '' in the SQLite project. */
    postgresAdminUrl: string
    /** A database on that server with the latest schema and no rows, to copy test vaults' databases from. */
    postgresMigratedTemplate: string
    databaseKind: 'sqlite' | 'postgres'
  }
}

/** The `postgres` test project's server: started before its tests, stopped after them. */
export default async function setup(project: TestProject): Promise<() => void> {
  const server = await startThrowawayPostgres()
  project.provide('postgresAdminUrl', server.adminUrl)
  project.provide('postgresMigratedTemplate', await createMigratedTemplate(server.adminUrl))
  return () => server.stop()
}

/**
 * Copying a database from a template takes a fraction of running every migration on a new one
 * (about 0.2 s against 0.6 s), and test vaults start on the latest schema anyway; their own
 * start still runs the migrations, which then find nothing to do.
 */
async function createMigratedTemplate(adminUrl: string): Promise<string> {
  const name = 'vault_migrated_template'
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  // Closed before any copy: PostgreSQL copies only a template nobody is connected to.
  const database = openPostgresDatabase(url.toString(), { scratchDir: '', onIdleError: () => {} })
  await migrateToLatest(database.db)
  await database.close()
  return name
}
