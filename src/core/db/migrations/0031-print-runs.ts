import type { Kysely } from 'kysely'

/**
 * Print runs: a dispatch that started a print is also the record of that run (see
 * core/printers/print-runs). It gains the queue job that sent it (none for a direct send), when the
 * run started and ended and how (`run_state`: printing, completed, cancelled, failed; null for a
 * send that started nothing), why it ended, the filament it used and where that figure came from,
 * and the user's verdict, note and photo (a blob in the blob store, kept by the orphan sweep while
 * a run names it). A printer's history is read by its start time; a model's through
 * `dispatches_file`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const columns: [string, 'text' | 'double precision' | 'integer'][] = [
    ['job_id', 'text'],
    ['run_state', 'text'],
    ['run_started_at', 'text'],
    ['run_ended_at', 'text'],
    ['run_reason', 'text'],
    ['filament_mm', 'double precision'],
    ['filament_g', 'double precision'],
    ['filament_source', 'text'],
    ['verdict', 'text'],
    ['note', 'text'],
    ['photo_sha256', 'text'],
    ['photo_type', 'text'],
    ['photo_size', 'integer'],
  ]
  for (const [name, type] of columns) await db.schema.alterTable('dispatches').addColumn(name, type).execute()
  await db.schema
    .createIndex('dispatches_printer_runs')
    .on('dispatches')
    .columns(['printer_id', 'run_started_at'])
    .execute()
  await db.schema.createIndex('dispatches_photo').on('dispatches').column('photo_sha256').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dispatches_photo').execute()
  await db.schema.dropIndex('dispatches_printer_runs').execute()
  for (const name of [
    'photo_size',
    'photo_type',
    'photo_sha256',
    'note',
    'verdict',
    'filament_source',
    'filament_g',
    'filament_mm',
    'run_reason',
    'run_ended_at',
    'run_started_at',
    'run_state',
    'job_id',
  ])
    await db.schema.alterTable('dispatches').dropColumn(name).execute()
}
