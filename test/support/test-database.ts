import pg from 'pg'
import { inject } from 'vitest'

/**
 * A fresh database for one test vault: a new SQLite file in the project `sqlite`, a new database
 * on the suite's PostgreSQL server in the project `postgres`, empty, or with `migrated` already on
 * the latest schema (as a vault's start would leave it, with no rows).
 * Returns the `VAULT_DATABASE_URL` to use and a function that drops it.
 */
export async function createTestDatabase(
  dataDir: string,
  { migrated = false } = {},
): Promise<{ url: string; kind: 'sqlite' | 'postgres'; drop: () => Promise<void> }> {
  if (inject('databaseKind') === 'sqlite') {
    return { url: `sqlite:${dataDir}/db/vault.sqlite`, kind: 'sqlite', drop: async () => {} }
  }
  const adminUrl = inject('postgresAdminUrl')
  const name = `vault_${crypto.randomUUID().replaceAll('-', '')}`
  const template = migrated ? ` template ${inject('postgresMigratedTemplate')}` : ''
  await withAdmin(adminUrl, (client) => client.query(`create database ${name}${template}`))
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    kind: 'postgres',
    drop: () =>
      withAdmin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  }
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** Runs one SQL statement on the PostgreSQL database at `url` with a connection of its own; answers the rows. */
export async function queryPostgres<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql, values)).rows as T[]
  } finally {
    await client.end()
  }
}
