import {
  type CompiledQuery,
  type DatabaseConnection,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Dialect,
  type Driver,
  Kysely,
  type OperationNode,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'
import type { SqlDialect } from './dialect.js'
import type { Database } from './schema.js'

/** A rule every write passes before it may commit. */
export interface WriteGuard {
  /**
   * Runs inside a transaction before its first write, on that transaction's own connection (`trx`),
   * and throws to refuse the write: the transaction then rolls back and nothing of it commits.
   */
  check(trx: Kysely<Database>, dialect: SqlDialect): Promise<void>
  /** Tables whose writes pass unchecked. */
  readonly unguardedTables: ReadonlySet<string>
}

/**
 * `dialect` with every write the Kysely handles built on it make (insert, update, delete, merge)
 * committed only by a transaction that passed `guard` first: an open transaction runs the guard
 * before its first write, and a write outside one runs in a transaction of its own (begin, guard,
 * the write, commit). So the guard decides at the commit's side, not when a request began. Writes
 * to the guard's `unguardedTables` and to the migrator's bookkeeping (which runs before the
 * guard's own tables exist), and raw SQL, pass as they are.
 */
export function guardWrites(dialect: Dialect, sqlDialect: SqlDialect, guard: WriteGuard): Dialect {
  return withDriver(dialect, () => {
    const driver = dialect.createDriver()
    // One guard handle per connection: the drivers hand the same connection object out again.
    const handles = new WeakMap<DatabaseConnection, Kysely<Database>>()
    const handleOf = (connection: DatabaseConnection) => {
      let handle = handles.get(connection)
      if (!handle) {
        handle = new Kysely<Database>({ dialect: withDriver(dialect, () => onConnection(connection)) })
        handles.set(connection, handle)
      }
      return handle
    }
    const guarded: GuardedParts = {
      driver,
      guards: (query) => {
        if (!isWrite(query.query)) return false
        const table = targetTable(query.query) ?? ''
        return !guard.unguardedTables.has(table) && !migrationTables.has(table)
      },
      guard: (connection) => guard.check(handleOf(connection), sqlDialect),
    }
    return guardedDriver(guarded)
  })
}

/** `dialect` (a class instance: its methods are on the prototype) with another driver. */
const withDriver = (dialect: Dialect, createDriver: () => Driver): Dialect => ({
  createAdapter: () => dialect.createAdapter(),
  createQueryCompiler: () => dialect.createQueryCompiler(),
  createIntrospector: (db) => dialect.createIntrospector(db),
  createDriver,
})

interface GuardedParts {
  driver: Driver
  guards(query: CompiledQuery): boolean
  guard(connection: DatabaseConnection): Promise<void>
}

/** A connection as lent out by the guarded driver: the driver's own, and where its transaction is. */
class GuardedConnection implements DatabaseConnection {
  transaction: 'none' | 'open' | 'guarded' = 'none'

  constructor(
    readonly inner: DatabaseConnection,
    private readonly parts: GuardedParts,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.transaction === 'guarded' || !this.parts.guards(query)) return this.inner.executeQuery(query)
    if (this.transaction === 'open') {
      await this.parts.guard(this.inner)
      this.transaction = 'guarded'
      return this.inner.executeQuery(query)
    }
    const { driver } = this.parts
    await driver.beginTransaction(this.inner, {})
    try {
      await this.parts.guard(this.inner)
      const result = await this.inner.executeQuery<R>(query)
      await driver.commitTransaction(this.inner)
      return result
    } catch (error) {
      await driver.rollbackTransaction(this.inner).catch(() => {})
      throw error
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery(query, chunkSize)
  }
}

function guardedDriver(parts: GuardedParts): Driver {
  const { driver } = parts
  const inner = (connection: DatabaseConnection) => (connection as GuardedConnection).inner
  const ended = (connection: DatabaseConnection) => ((connection as GuardedConnection).transaction = 'none')
  return {
    init: () => driver.init(),
    acquireConnection: async () => new GuardedConnection(await driver.acquireConnection(), parts),
    async beginTransaction(connection, settings: TransactionSettings) {
      await driver.beginTransaction(inner(connection), settings)
      ;(connection as GuardedConnection).transaction = 'open'
    },
    async commitTransaction(connection) {
      try {
        await driver.commitTransaction(inner(connection))
      } finally {
        ended(connection)
      }
    },
    async rollbackTransaction(connection) {
      try {
        await driver.rollbackTransaction(inner(connection))
      } finally {
        ended(connection)
      }
    },
    savepoint: (connection, name, compile) => required(driver.savepoint)(inner(connection), name, compile),
    rollbackToSavepoint: (connection, name, compile) =>
      required(driver.rollbackToSavepoint)(inner(connection), name, compile),
    releaseSavepoint: (connection, name, compile) =>
      required(driver.releaseSavepoint)(inner(connection), name, compile),
    releaseConnection: (connection) => driver.releaseConnection(inner(connection)),
    destroy: () => driver.destroy(),
  }

  function required<F extends (...args: never[]) => unknown>(method: F | undefined): F {
    if (!method) throw new Error('this database has no savepoints')
    return method.bind(driver) as F
  }
}

/** A driver lending out one connection that is already open (the guard's queries run on it). */
function onConnection(connection: DatabaseConnection): Driver {
  const nothing = async () => {}
  return {
    init: nothing,
    acquireConnection: async () => connection,
    beginTransaction: nothing,
    commitTransaction: nothing,
    rollbackTransaction: nothing,
    releaseConnection: nothing,
    destroy: nothing,
  }
}

const migrationTables = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE])

const writeKinds = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode'])

const isWrite = (node: OperationNode) => writeKinds.has(node.kind)

/** The name of the table a write statement changes (its first, for a delete from several). */
function targetTable(node: OperationNode): string | undefined {
  const fields = node as {
    into?: OperationNode
    table?: OperationNode
    from?: { froms: readonly OperationNode[] }
  }
  return tableName(fields.into ?? fields.table ?? fields.from?.froms[0])
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (node?.kind === 'AliasNode') return tableName((node as unknown as { node: OperationNode }).node)
  if (node?.kind === 'TableNode')
    return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name
  return undefined
}
