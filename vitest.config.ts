import { configDefaults, defineConfig } from 'vitest/config'

/**
 * The whole suite runs twice: once on SQLite files, once on a real PostgreSQL server that
 * the `postgres` project's global setup starts. Tests get the kind through `inject`.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          provide: { databaseKind: 'sqlite', postgresAdminUrl: '' },
          // Replicas share one server database; an SQLite file belongs to one process's install.
          exclude: [...configDefaults.exclude, 'test/replicas.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          provide: { databaseKind: 'postgres' },
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
    ],
  },
})
