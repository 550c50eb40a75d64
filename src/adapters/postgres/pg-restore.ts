import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { promisify } from 'node:util'
import type { Kysely } from 'kysely'
import { invalidArchive } from '../../core/backup/verify-archive.js'
import type { RestoreStatements, StagedDatabase } from '../../core/db/database.js'
import { type Database, vaultFunctions, vaultTables } from '../../core/db/schema.js'
import { writeScratchFile } from '../fs/scratch-file.js'
import { libpqEnvironment } from './pg-dump.js'

const run = promisify(execFile)

/**
 * Stages a `pg_dump --format=custom` file for a restore. `pg_restore --list` reads its
 * table of contents first, so a file that is no dump fails here, before any swap.
 */
export async function stagePgRestore(
  url: string,
  db: Kysely<Database>,
  scratchDir: string,
  body: ReadableStream<Uint8Array>,
): Promise<StagedDatabase> {
  const path = await writeScratchFile(scratchDir, '.pgdump', body)
  try {
    await run('pg_restore', ['--list', path], { env: clientEnvironment(url) })
  } catch (error) {
    await rm(path, { force: true })
    throw invalidArchive(
      `its database dump cannot be read by pg_restore (${lastLine((error as { stderr?: string }).stderr)}).`,
    )
  }
  return {
    async swapIn(statements) {
      try {
        await swapInDump(url, db, path, statements)
      } finally {
        await rm(path, { force: true })
      }
    },
    discard: () => rm(path, { force: true }),
  }
}

/**
 * Replaces the vault's tables with the dump's in one transaction, run by `psql` from a
 * script this process writes to its stdin: `BEGIN`, drop the vault's tables (only ours:
 * the database may hold others), the dump as SQL from `pg_restore --file=-`, `statements`,
 * and `COMMIT` only once `pg_restore` has finished cleanly. If this process dies first,
 * psql's input ends without `COMMIT` and PostgreSQL rolls everything back.
 */
async function swapInDump(
  url: string,
  db: Kysely<Database>,
  dumpPath: string,
  statements: RestoreStatements,
): Promise<void> {
  const finalSql = statements(db).map((statement) => {
    const compiled = statement.compile()
    if (compiled.parameters.length > 0) throw new Error(`restore statements must use literal values: ${compiled.sql}`)
    return `${compiled.sql};\n`
  })
  const env = clientEnvironment(url)
  const psql = spawn('psql', ['--no-psqlrc', '--quiet', '--set=ON_ERROR_STOP=1'], {
    env,
    stdio: ['pipe', 'ignore', 'pipe'],
  })
  const pgRestore = spawn('pg_restore', ['--no-owner', '--no-privileges', '--file=-', dumpPath], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const psqlExit = exitOf(psql)
  const pgRestoreExit = exitOf(pgRestore)
  // psql stops reading when a statement fails; its exit code reports that, not this EPIPE.
  psql.stdin.on('error', () => {})
  const tables = vaultTables.map((name) => `public."${name}"`).join(', ')
  // The dump recreates the vault's trigger functions too; dropping them first keeps them from clashing.
  const functions = vaultFunctions.map((name) => `DROP FUNCTION IF EXISTS public."${name}"() CASCADE;\n`).join('')
  psql.stdin.write(`BEGIN;\nDROP TABLE IF EXISTS ${tables} CASCADE;\n${functions}`)
  pgRestore.stdout.pipe(psql.stdin, { end: false })
  const restored = await pgRestoreExit
  psql.stdin.end(restored.code === 0 ? `\nSET search_path TO public;\n${finalSql.join('')}COMMIT;\n` : '')
  const applied = await psqlExit
  if (restored.code !== 0) throw new Error(`pg_restore failed: ${lastLine(restored.stderr)}`)
  if (applied.code !== 0) throw new Error(`restoring the database dump failed: ${lastLine(applied.stderr)}`)
}

function clientEnvironment(url: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...libpqEnvironment(url), PGAPPNAME: 'model-vault-restore' }
}

function exitOf(child: ChildProcess & { stderr: Readable }): Promise<{ code: number | null; stderr: string }> {
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4000)))
  return new Promise((resolve) => {
    child.once('error', (error) => resolve({ code: -1, stderr: error.message }))
    child.once('close', (code) => resolve({ code, stderr }))
  })
}

const lastLine = (text: string | undefined) => text?.trim().split('\n').at(-1) ?? 'no message'
