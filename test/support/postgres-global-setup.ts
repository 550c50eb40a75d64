import type { TestProject } from 'vitest/node'
import { startThrowawayPostgres } from './throwaway-postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the throwaway PostgreSQL server, or '' in the SQLite project. */
    postgresAdminUrl: string
    databaseKind: 'sqlite' | 'postgres'
  }
}

/** The `postgres` test project's server: started before its tests, stopped after them. */
export default async function setup(project: TestProject): Promise<() => void> {
  const server = await startThrowawayPostgres()
  project.provide('postgresAdminUrl', server.adminUrl)
  return () => server.stop()
}
