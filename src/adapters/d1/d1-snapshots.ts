import type { D1Database, D1PreparedStatement } from '@cloudflare/workers-types'
import type { Kysely } from 'kysely'
import { type DumpedObject, readSqlDump, sqlDumpLines } from '../../core/backup/sql-dump.js'
import { invalidArchive } from '../../core/backup/verify-archive.js'
import { type DatabaseSnapshot, type StagedDatabase, snapshotFileNames } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'
import { VaultError } from '../../core/errors.js'
import { readBounded } from '../web/read-bounded.js'

/** SQLite's own tables and D1's (`_cf_KV`, whose reading D1 refuses; `d1_migrations`): neither dumped nor dropped. */
const notOurs = /^(sqlite_|_cf_|d1_)/i
/** The tables FTS5 keeps a virtual table's index in, `<name>_<suffix>`: rebuilt from its rows instead. */
const fts5ShadowSuffixes = ['data', 'idx', 'content', 'docsize', 'config']

interface SchemaRow {
  type: DumpedObject['type']
  name: string
  tbl_name: string
  sql: string | null
}

const isVirtual = (object: { sql: string | null }) => /^create\s+virtual\s+table/i.test(object.sql ?? '')
const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Backups and restores of a D1 database, which has no file to copy and no transaction a Worker
 * can hold open: a snapshot is the SQL dump of every table of ours (core/backup/sql-dump.ts),
 * read in one D1 batch, which D1 runs as one transaction, so the copy is consistent while writes
 * go on; a restore replaces every table in one batch, which D1 runs all or nothing. Both hold the
 * dump in memory, so both refuse a dump over `maxBytes` (501).
 */
export function d1Snapshots(d1: D1Database, db: Kysely<Database>, maxBytes: number) {
  const schema = () =>
    d1.prepare('select type, name, tbl_name, sql from sqlite_master where sql is not null order by rowid')
  const tooLarge = () =>
    new VaultError(
      'not_supported_on_this_runtime',
      `The database is dumped in memory for a backup or restore on Cloudflare Workers, up to VAULT_WORKERS_BACKUP_MAX_BYTES (${maxBytes} bytes), and this one is larger. Use a Node install, or wrangler d1 export.`,
    )
  return {
    restorableSnapshots: [snapshotFileNames.sqlDump],

    async snapshot(): Promise<DatabaseSnapshot> {
      const objects = ourObjects((await schema().all<SchemaRow>()).results)
      const tables = objects.filter((object) => object.type === 'table')
      const [again, ...results] = await d1.batch<Record<string, unknown>>([
        schema(),
        ...tables.map((table) =>
          d1.prepare(`select ${isVirtual(table) ? 'rowid, ' : ''}* from ${quoteName(table.name)}`),
        ),
      ])
      // The schema read inside the batch is the one the rows belong to.
      if (JSON.stringify(ourObjects((again?.results ?? []) as unknown as SchemaRow[])) !== JSON.stringify(objects))
        throw new Error('the database schema changed while it was being copied (a migration ran); back up again')
      const data = tables.map((table, i) => ({ table: table.name, rows: results[i]?.results ?? [] }))
      const count = (name: string) => data.find((table) => table.table === name)?.rows.length ?? 0
      const lines = [...sqlDumpLines(objects, data)]
      const bytes = new TextEncoder().encode(`${lines.join('\n')}\n`)
      if (bytes.byteLength > maxBytes) throw tooLarge()
      return {
        fileName: snapshotFileNames.sqlDump,
        size: bytes.byteLength,
        counts: { users: count('users'), models: count('models'), files: count('files') },
        stream: () => new Blob([bytes]).stream(),
        dispose: async () => {},
      }
    },

    async stageRestore(_fileName: string, body: ReadableStream<Uint8Array>): Promise<StagedDatabase> {
      const bytes = await readBounded(body, maxBytes, tooLarge)
      let text: string
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch {
        throw invalidArchive('its database dump is not UTF-8 text.')
      }
      const statements = readSqlDump(text)
      return {
        async swapIn(restoreStatements) {
          const live = ourObjects((await schema().all<SchemaRow>()).results)
          const references = await d1
            .prepare(
              `select m.name as child, f."table" as parent from sqlite_master m join pragma_foreign_key_list(m.name) f
              where m.type = 'table' and m.name not glob 'sqlite_*' and m.name not glob '_cf_*' and m.name not glob 'd1_*'`,
            )
            .all<{ child: string; parent: string }>()
          // Views first, then tables, each after every table that refers to it: dropping a table deletes
          // its rows, whose foreign-key actions (and the triggers those fire) need the tables they name.
          // Virtual tables last (their shadow tables go with them); indexes and triggers go with their table.
          const tables = live.filter((object) => object.type === 'table')
          const drops = [
            ...live.filter((object) => object.type === 'view').map((view) => `DROP VIEW ${quoteName(view.name)}`),
            ...[
              ...childrenFirst(
                tables.filter((table) => !isVirtual(table)).map((table) => table.name),
                references.results,
              ),
              ...tables.filter(isVirtual).map((table) => table.name),
            ].map((name) => `DROP TABLE ${quoteName(name)}`),
          ]
          const batch: D1PreparedStatement[] = [
            // Foreign keys are checked once, at the end: the dump inserts table by table.
            d1.prepare('PRAGMA defer_foreign_keys = on'),
            ...drops.map((sql) => d1.prepare(sql)),
            ...statements.map((sql) => d1.prepare(sql)),
            ...restoreStatements(db).map((statement) => {
              const { sql, parameters } = statement.compile()
              return d1.prepare(sql).bind(...parameters)
            }),
          ]
          try {
            await d1.batch(batch)
          } catch (error) {
            throw invalidArchive(
              `D1 did not take its database, so nothing was changed (${error instanceof Error ? error.message : String(error)}).`,
            )
          }
        },
        discard: async () => {},
      }
    },
  }
}

/** The schema objects a dump holds: ours, with neither D1's nor SQLite's nor FTS5's shadow tables. */
function ourObjects(rows: SchemaRow[]): DumpedObject[] {
  const shadows = new Set(
    rows.filter(isVirtual).flatMap((table) => fts5ShadowSuffixes.map((suffix) => `${table.name}_${suffix}`)),
  )
  return rows
    .filter((row) => row.sql && !notOurs.test(row.name) && !notOurs.test(row.tbl_name) && !shadows.has(row.name))
    .map((row) => ({ type: row.type, name: row.name, sql: row.sql as string }))
}

/** `tables` ordered so that each comes after every other table whose foreign keys name it; a cycle keeps its order. */
function childrenFirst(tables: string[], references: { child: string; parent: string }[]): string[] {
  const ordered: string[] = []
  let left = tables
  while (left.length > 0) {
    const referred = new Set(
      references.filter((r) => r.child !== r.parent && left.includes(r.child)).map((r) => r.parent),
    )
    const free = left.filter((table) => !referred.has(table))
    const next = free.length > 0 ? free : left
    ordered.push(...next)
    left = left.filter((table) => !next.includes(table))
  }
  return ordered
}
