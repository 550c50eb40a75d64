import { execFile } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { promisify } from 'node:util'
import { type Kysely, sql } from 'kysely'
import { countSnapshotRows, type DatabaseSnapshot, snapshotFileNames } from '../../core/db/database.js'
import type { Database } from '../../core/db/schema.js'
import { scratchPath, snapshotFromFile } from '../fs/scratch-file.js'

const run = promisify(execFile)

/**
 * libpq's environment variables for a connection URL, so the password never appears on a
 * command line (where `ps` would show it).
 */
export function libpqEnvironment(url: string): Record<string, string> {
  const parsed = new URL(url)
  const env: Record<string, string> = {
    PGHOST: decodeURIComponent(parsed.hostname),
    PGPORT: parsed.port || '5432',
    PGDATABASE: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
  }
  if (parsed.username) env.PGUSER = decodeURIComponent(parsed.username)
  if (parsed.password) env.PGPASSWORD = decodeURIComponent(parsed.password)
  const sslmode = parsed.searchParams.get('sslmode')
  if (sslmode) env.PGSSLMODE = sslmode
  return env
}

/**
 * `pg_dump --format=custom` into a scratch file: one consistent snapshot while the service
 * keeps writing. A repeatable-read transaction exports its snapshot, counts the manifest's
 * rows in it and keeps it open while `pg_dump --snapshot` dumps exactly that view. Needs the PostgreSQL
 * client tools (Debian: postgresql-client) of the server's major version or newer.
 */
export async function pgDumpSnapshot(url: string, db: Kysely<Database>, scratchDir: string): Promise<DatabaseSnapshot> {
  const path = await scratchPath(scratchDir, '.pgdump')
  try {
    // The counts and the dump see one snapshot: exported by this transaction, imported by pg_dump.
    const counts = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const {
          rows: [snapshot],
        } = await sql<{ id: string }>`select pg_export_snapshot() as id`.execute(trx)
        if (!snapshot) throw new Error('PostgreSQL exported no snapshot')
        const counted = await countSnapshotRows(trx)
        await run(
          'pg_dump',
          ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot.id}`, `--file=${path}`],
          {
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...libpqEnvironment(url) },
          },
        )
        return counted
      })
    return await snapshotFromFile(path, snapshotFileNames.postgres, counts)
  } catch (error) {
    await rm(path, { force: true })
    const stderr = (error as { stderr?: string }).stderr?.trim()
    throw new Error(`pg_dump failed${stderr ? `: ${stderr.split('\n').at(-1)}` : ''}`, { cause: error })
  }
}
