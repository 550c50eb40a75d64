import type SQLite from 'better-sqlite3'
import type { SqliteDatabase } from 'kysely'
import { type KeptStatement, type SchemaGeneration, withRowObjects } from './row-objects.js'

/** The cached database handle, told when a restore has replaced the file's tables. */
export type CachedSqliteDatabase = SqliteDatabase & { schemaReplaced(): void }

/**
 * better-sqlite3 behind Kysely with its prepared statements kept: Kysely's SQLite driver prepares
 * every query anew, which cost about a tenth of a cheap request (`GET /me`). Statements are kept
 * by SQL text, the `limit` most recently used (queries with `in (…)` lists of every length are
 * many shapes). A statement still being iterated (a streamed export) is busy and cannot run a
 * second time, so a concurrent caller of the same SQL gets a fresh one. SQLite re-prepares a kept
 * statement itself when the schema changes. Rows are built in JavaScript (row-objects.ts).
 */
export function withStatementCache(sqlite: SQLite.Database, limit = 256): CachedSqliteDatabase {
  const statements = new Map<string, KeptStatement>()
  const schema: SchemaGeneration = { current: 0 }
  return {
    close: () => sqlite.close(),
    schemaReplaced() {
      schema.current++
    },
    prepare(sql) {
      const kept = statements.get(sql)
      if (kept !== undefined && !kept.busy) {
        // Map order is insertion order: moving a hit to the end keeps the oldest first.
        statements.delete(sql)
        statements.set(sql, kept)
        return kept
      }
      const statement = withRowObjects(sqlite.prepare(sql), schema)
      if (kept === undefined) {
        statements.set(sql, statement)
        if (statements.size > limit) statements.delete(statements.keys().next().value as string)
      }
      return statement
    },
  }
}
