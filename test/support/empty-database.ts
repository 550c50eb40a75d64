import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js'
import { openSqliteDatabase } from '../../src/adapters/sqlite/sqlite-database.js'
import type { VaultDatabase } from '../../src/core/db/database.js'
import { createTestDatabase } from './test-database.js'

/**
 * An empty, unmigrated database of the project's kind (a new SQLite file, or a new database on
 * the suite's PostgreSQL), opened as the service opens it but with no service around it, for
 * tests of the schema and of what the database itself does. `dispose` closes and drops it.
 */
export async function openEmptyDatabase(): Promise<{
  database: VaultDatabase
  /** The `VAULT_DATABASE_URL` of it, for connections of a test's own. */
  url: string
  dispose: () => Promise<void>
}> {
  const dir = await mkdtemp(join(tmpdir(), 'vault-db-'))
  const test = await createTestDatabase(dir)
  const scratchDir = join(dir, 'scratch')
  const database =
    test.kind === 'sqlite'
      ? openSqliteDatabase(join(dir, 'vault.sqlite'), { scratchDir })
      : openPostgresDatabase(test.url, { scratchDir, onIdleError: () => {} })
  return {
    database,
    url: test.url,
    dispose: async () => {
      await database.close()
      await test.drop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
