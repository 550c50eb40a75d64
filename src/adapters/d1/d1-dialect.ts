import type { D1Database, D1PreparedStatement } from '@cloudflare/workers-types'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteQueryCompiler,
  sql,
  type TableMetadata,
} from 'kysely'

/**
 * Kysely over a Cloudflare D1 binding (D1 is SQLite, so Kysely's SQLite adapter and compiler
 * apply; its introspector does not, see `D1Introspector`).
 *
 * D1 has no interactive transactions: it refuses `BEGIN` and `SAVEPOINT`, and its only atomic
 * unit is a `batch()` of statements fixed in advance, while every transaction of the core reads
 * and then decides what to write. So a Kysely transaction here runs its statements one by one as
 * they come, each committed on its own:
 * - transactions of one isolate run one at a time (a queue in this driver), so two requests to
 *   the same isolate never interleave inside one; requests served by other isolates can;
 * - a transaction that fails part-way keeps the statements it ran before the failure (there is
 *   nothing to roll back to).
 * README.md ("Cloudflare Workers") lists what this changes for each operation.
 */
export class D1Dialect implements Dialect {
  constructor(private readonly database: D1Database) {}

  createAdapter() {
    return new SqliteAdapter()
  }
  createDriver(): Driver {
    return new D1Driver(this.database)
  }
  createIntrospector(db: Kysely<unknown>) {
    return new D1Introspector(db)
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler()
  }
}

class D1Driver implements Driver {
  /** Settles when the transaction under way (if any) has ended. */
  private transactionQueue: Promise<void> = Promise.resolve()
  private readonly endTransaction = new WeakMap<DatabaseConnection, () => void>()

  constructor(private readonly database: D1Database) {}

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // D1 is stateless over HTTP-like calls: each acquire gets its own handle, so plain queries
    // of concurrent requests run side by side.
    return new D1Connection(this.database)
  }

  async beginTransaction(connection: DatabaseConnection) {
    const previous = this.transactionQueue
    let end!: () => void
    this.transactionQueue = new Promise<void>((resolve) => {
      end = resolve
    })
    this.endTransaction.set(connection, end)
    await previous
  }

  async commitTransaction(connection: DatabaseConnection) {
    this.finish(connection)
  }

  // Nothing can be undone: the statements already ran, each committed (see the class comment).
  async rollbackTransaction(connection: DatabaseConnection) {
    this.finish(connection)
  }

  async releaseConnection(connection: DatabaseConnection) {
    this.finish(connection)
  }

  async destroy() {}

  private finish(connection: DatabaseConnection) {
    this.endTransaction.get(connection)?.()
    this.endTransaction.delete(connection)
  }
}

/**
 * One handle on D1. A literal `begin` … `commit` sent through it (the migration that rebuilds a
 * table does) becomes one D1 `batch()`, which D1 runs atomically: the statements in between are
 * held back and answer no rows, and `rollback` drops them.
 */
class D1Connection implements DatabaseConnection {
  private batch: D1PreparedStatement[] | undefined

  constructor(private readonly database: D1Database) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const keyword = /^\s*(begin|commit|end|rollback)\b(\s+transaction)?\s*;?\s*$/i.exec(query.sql)?.[1]?.toLowerCase()
    if (keyword === 'begin') {
      this.batch = []
      return { rows: [] }
    }
    if (keyword && this.batch) {
      const statements = this.batch
      this.batch = undefined
      if (keyword !== 'rollback' && statements.length > 0) await this.database.batch(statements)
      return { rows: [] }
    }
    const statement = this.database.prepare(query.sql).bind(...query.parameters.map(toD1Value))
    if (this.batch) {
      this.batch.push(statement)
      return { rows: [] }
    }
    const result = await statement.all<R>()
    // SQLite's `changes` and `last_row_id` keep the values of the connection's previous write
    // when this statement wrote nothing (an update that matched no row): only `changed_db` tells.
    const { changed_db: wrote, changes, last_row_id: lastRowId } = result.meta
    return {
      rows: result.results,
      numAffectedRows: BigInt(wrote ? changes : 0),
      ...(wrote ? { insertId: BigInt(lastRowId) } : {}),
    }
  }

  // biome-ignore lint/correctness/useYield: D1 answers whole result sets; the core streams no query.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('D1 cannot stream query results')
  }
}

/**
 * Kysely's SQLite introspector reads `pragma_table_info` of every table in `sqlite_master`, and D1
 * keeps internal tables there (`_cf_KV`) whose reading it refuses (SQLITE_AUTH). This one leaves
 * them out. The migrator and the schema-version check only need the table names.
 */
class D1Introspector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas() {
    return []
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const kyselyTables = options.withInternalKyselyTables
      ? sql``
      : sql`and name not in (${DEFAULT_MIGRATION_TABLE}, ${DEFAULT_MIGRATION_LOCK_TABLE})`
    const tables = await sql<{ name: string; type: string }>`select name, type from sqlite_master
      where type in ('table', 'view') and name not glob 'sqlite_*' and name not glob '_cf_*'
      ${kyselyTables} order by name`.execute(this.db)
    return Promise.all(
      tables.rows.map(async ({ name, type }) => {
        const columns = await sql<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>`
          select name, type, "notnull", dflt_value, pk from pragma_table_info(${name})`.execute(this.db)
        return {
          name,
          isView: type === 'view',
          columns: columns.rows.map((column) => ({
            name: column.name,
            dataType: column.type,
            isNullable: !column.notnull,
            isAutoIncrementing: column.pk > 0 && column.type.toLowerCase() === 'integer',
            hasDefaultValue: column.dflt_value !== null,
          })),
        }
      }),
    )
  }

  async getMetadata(options?: DatabaseMetadataOptions) {
    return { tables: await this.getTables(options) }
  }
}

/** D1 binds numbers, strings, null and bytes; booleans and bigints become numbers as SQLite stores them. */
function toD1Value(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'bigint') return Number(value)
  return value
}
