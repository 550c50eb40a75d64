/**
 * How long migration 0014 (each model's tag and format lists kept on its row) takes on an existing
 * library (issue 18): `npx tsx scripts/bench/model-lists-migration.ts [--database sqlite|postgres]
 * [--models 100000] [--rounds 2]`.
 *
 * Writes the generated benchmark library (scripts/bench/library-generator.ts) into a fresh
 * database (SQLite in a temporary folder; PostgreSQL a throwaway server), then per round takes
 * the database back to 0013 (0014's `down`: the columns and triggers go) and times migrating it
 * to the latest version: adding the columns, filling them for every model and creating the
 * triggers. Checks afterwards that the filled lists equal the ones the triggers kept while the
 * library was written. Prints models, files and seconds per round.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual, parseArgs } from 'node:util'
import { Migrator } from 'kysely'
import { openPostgresDatabase } from '../../src/adapters/postgres/postgres-database.js'
import { openSqliteDatabase } from '../../src/adapters/sqlite/sqlite-database.js'
import type { VaultDatabase } from '../../src/core/db/database.js'
import { migrateToLatest } from '../../src/core/db/migrate.js'
import { migrations } from '../../src/core/db/migrations/index.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { writeLibrary } from './library-generator.js'

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'sqlite' },
    models: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '2' },
  },
})
if (args.database !== 'sqlite' && args.database !== 'postgres') throw new Error('--database must be sqlite or postgres')

const dir = mkdtempSync(join(tmpdir(), 'vault-lists-migration-'))
const server = args.database === 'postgres' ? await startThrowawayPostgres() : undefined
const database: VaultDatabase = server
  ? openPostgresDatabase(server.adminUrl, { scratchDir: dir, onIdleError: (error) => console.error(error) })
  : openSqliteDatabase(join(dir, 'vault.sqlite'), { scratchDir: dir })
try {
  const { files, seconds } = await writeLibrary(database, Number(args.models))
  console.log(`${args.database}: ${args.models} models, ${files} files written in ${seconds.toFixed(0)} s`)
  const lists = () =>
    database.db.selectFrom('models').select(['id', 'tag_names', 'file_formats']).orderBy('id').execute()
  const kept = await lists()
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } })
  for (let round = 1; round <= Number(args.rounds); round++) {
    const down = await migrator.migrateTo('0013-library-counts')
    if (down.error) throw down.error
    const started = performance.now()
    await migrateToLatest(database.db)
    const elapsed = (performance.now() - started) / 1000
    if (!isDeepStrictEqual(await lists(), kept)) throw new Error('the filled lists differ from the kept ones')
    console.log(
      `round ${round}: migration 0014 in ${elapsed.toFixed(1)} s (${((elapsed * 1e6) / Number(args.models)).toFixed(1)} µs per model)`,
    )
  }
} finally {
  await database.close()
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
}
