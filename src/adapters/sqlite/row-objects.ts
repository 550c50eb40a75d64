import type SQLite from 'better-sqlite3'
import type { SqliteStatement } from 'kysely'

/** A counter that moves whenever the database's tables may have changed shape (DDL, a restore). */
export interface SchemaGeneration {
  current: number
}

/** A statement as Kysely's SQLite driver uses it, plus whether it is still being iterated. */
export type KeptStatement = SqliteStatement & { readonly busy: boolean }

type RowBuilder = (row: readonly unknown[]) => Record<string, unknown>

const changesSchema = /^\s*(create|alter|drop)\s/i

/**
 * A better-sqlite3 statement whose rows are built in JavaScript: better-sqlite3 builds each row
 * object property by property from C++, which cost 35–50 % of reading a 50-model page's rows.
 * A reader runs in raw mode (rows as arrays) and an object literal compiled once per statement
 * from its column names turns each array into the object better-sqlite3 would have built: the
 * same keys in the same order, the last of duplicate names winning, values untouched.
 *
 * The names are read after a run (SQLite re-prepares a statement whose schema changed when it
 * next runs, and `columns()` before that still gives the old ones) and read again when a row's
 * width differs or `schema` moved: DDL run through any statement of the same cache moves it, and
 * so does a restore copied into the file. A table reshaped by another process to the same width
 * in another order is not seen; our migrations only add columns.
 */
export function withRowObjects(statement: SQLite.Statement, schema: SchemaGeneration): KeptStatement {
  if (!statement.reader) {
    const ddl = changesSchema.test(statement.source)
    return {
      reader: false,
      get busy() {
        return statement.busy
      },
      all: (parameters) => statement.all(parameters),
      run(parameters) {
        const result = statement.run(parameters)
        if (ddl) schema.current++
        return result
      },
      iterate: (parameters) => statement.iterate(parameters),
    }
  }
  statement.raw(true)
  let build: RowBuilder | undefined
  let width = -1
  let generation = -1
  const builderFor = (row: readonly unknown[]): RowBuilder => {
    if (build === undefined || row.length !== width || generation !== schema.current) {
      build = rowBuilder(statement.columns().map((column) => column.name))
      width = row.length
      generation = schema.current
    }
    return build
  }
  return {
    reader: true,
    get busy() {
      return statement.busy
    },
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][]
      if (rows.length === 0) return rows
      const toObject = builderFor(rows[0] as unknown[])
      return rows.map(toObject)
    },
    run: (parameters) => statement.run(parameters),
    // better-sqlite3 starts iterating (and marks the statement busy) at the call, not at the first row.
    iterate(parameters) {
      return mapRows(statement.iterate(parameters) as IterableIterator<unknown[]>, builderFor)
    },
  }
}

function* mapRows(
  rows: IterableIterator<unknown[]>,
  builderFor: (row: readonly unknown[]) => RowBuilder,
): Generator<Record<string, unknown>> {
  let toObject: RowBuilder | undefined
  for (const row of rows) {
    toObject ??= builderFor(row)
    yield toObject(row)
  }
}

/**
 * `(row) => ({ "id": row[0], "name": row[1], … })`: V8 builds such a literal from one fixed shape,
 * far faster than setting properties one by one. `__proto__` as a plain literal key would set the
 * prototype, so it is written as a computed key, which defines an own property as better-sqlite3 does.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  const fields = names.map((name, index) => {
    const key = JSON.stringify(name)
    return `${name === '__proto__' ? `[${key}]` : key}: row[${index}]`
  })
  return new Function('row', `return { ${fields.join(', ')} }`) as RowBuilder
}
