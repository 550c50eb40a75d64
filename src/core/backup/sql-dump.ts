import { invalidArchive } from './verify-archive.js'

/**
 * `db/vault.sql`: an SQLite-family database as plain SQL, one statement per line. Cloudflare D1
 * has no file a backup could copy, so the Workers build archives this instead of `vault.sqlite`;
 * D1 and SQLite on Node both restore it, and `sqlite3 new.db < vault.sql` reads it too.
 *
 * Layout: the header line, every table's `CREATE`, its rows as multi-row `INSERT`s, then indexes,
 * triggers and views (after the rows, as `sqlite3 .dump` does, so no trigger fires on them).
 * Virtual tables (the FTS5 search index) are dumped by their `CREATE VIRTUAL TABLE` and their rows
 * with `rowid`, never through their shadow tables.
 */
export const sqlDumpHeader = '-- model-vault SQL dump, format 1: one statement per line'

/** A schema object as `sqlite_master` holds it. */
export interface DumpedObject {
  type: 'table' | 'index' | 'trigger' | 'view'
  name: string
  sql: string
}

/** One table's rows: the same column names for each row, values as the database answered them. */
export interface DumpedRows {
  table: string
  rows: Record<string, unknown>[]
}

/** Under D1's 100 KB statement limit, with room for one more row. */
const insertBytes = 64 * 1024

/** The dump of `objects` (tables first in it) and their rows, as lines without line ends. */
export function* sqlDumpLines(objects: DumpedObject[], data: DumpedRows[]): Generator<string> {
  yield sqlDumpHeader
  for (const object of objects) if (object.type === 'table') yield `${oneLine(object.sql)};`
  for (const { table, rows } of data) {
    const first = rows[0]
    if (!first) continue
    const columns = Object.keys(first)
    const head = `INSERT INTO ${quoteName(table)} (${columns.map(quoteName).join(', ')}) VALUES `
    let values: string[] = []
    let bytes = 0
    for (const row of rows) {
      const tuple = `(${columns.map((column) => sqlLiteral(row[column])).join(', ')})`
      if (values.length > 0 && bytes + tuple.length > insertBytes) {
        yield `${head}${values.join(', ')};`
        values = []
        bytes = 0
      }
      values.push(tuple)
      bytes += tuple.length + 2
    }
    yield `${head}${values.join(', ')};`
  }
  for (const object of objects) if (object.type !== 'table') yield `${oneLine(object.sql)};`
}

const allowedStatement =
  /^(CREATE (TABLE|VIRTUAL TABLE|INDEX|UNIQUE INDEX|TRIGGER|VIEW) |INSERT INTO "[^"]*(""[^"]*)*" \()[\s\S]*;$/i

/**
 * The statements of a dump, checked for its shape before anything runs: the header, then only
 * `CREATE …` and `INSERT INTO …` lines, each one whole statement. Anything else is refused
 * with `422 invalid_archive`.
 */
export function readSqlDump(text: string): string[] {
  const lines = text.split('\n')
  if (lines[0] !== sqlDumpHeader) throw invalidArchive('its database dump is not a model-vault SQL dump.')
  const statements: string[] = []
  for (const [index, line] of lines.entries()) {
    if (index === 0 || line === '' || line.startsWith('--')) continue
    if (!allowedStatement.test(line))
      throw invalidArchive(`line ${index + 1} of its database dump is not a statement a dump holds.`)
    statements.push(line)
  }
  return statements
}

/** A value as an SQLite literal. Text with control characters (a newline) is spelled in hex, keeping one statement per line. */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? '9e999' : '-9e999'
  if (typeof value === 'bigint') return String(value)
  if (typeof value === 'string') {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for.
    if (!/[\u0000-\u001f]/.test(value)) return `'${value.replaceAll("'", "''")}'`
    return `CAST(${hexLiteral(new TextEncoder().encode(value))} AS TEXT)`
  }
  if (value instanceof ArrayBuffer) return hexLiteral(new Uint8Array(value))
  if (ArrayBuffer.isView(value)) return hexLiteral(new Uint8Array(value.buffer, value.byteOffset, value.byteLength))
  // D1 answers blobs as arrays of byte values.
  if (Array.isArray(value)) return hexLiteral(Uint8Array.from(value as number[]))
  throw new Error(`a value of type ${typeof value} cannot be dumped`)
}

const hexLiteral = (bytes: Uint8Array) =>
  `X'${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}'`

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * A schema statement on one line: line ends and `--` comments outside quotes become spaces (SQL
 * whitespace). A line end inside a quoted string cannot, and such a schema is refused.
 */
function oneLine(sql: string): string {
  let out = ''
  let quote: string | null = null
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string
    if (quote) {
      if (c === '\n' || c === '\r')
        throw new Error(`the schema statement "${sql.slice(0, 60)}…" has a line end inside quotes`)
      if (c === quote) quote = null
      out += c
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++
      out += ' '
    } else if (c === '\n' || c === '\r') out += ' '
    else {
      if (c === "'" || c === '"' || c === '`') quote = c
      else if (c === '[') quote = ']'
      out += c
    }
  }
  return out.trimEnd().replace(/;$/, '')
}
