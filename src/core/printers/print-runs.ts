import type { Kysely, Selectable } from 'kysely'
import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { Principal } from '../accounts/principal.js'
import { hasRole } from '../accounts/roles.js'
import { putContentAddressed, streamOf } from '../blobs/put-content-addressed.js'
import type { StorageDeps } from '../blobs/storage-deps.js'
import type { Database, DispatchesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { imageKind, imageSize } from '../formats/image-header.js'
import { releaseContent } from '../library/content-release.js'
import { decodeCursor, encodeCursor } from '../library/cursor.js'
import type { PrintersDeps } from './printers-deps.js'
import type { JobEnding, PrinterStatus } from './provider.js'

/**
 * Print runs: a file printed once on a printer. A send that the printer was seen printing (a
 * `confirmed` dispatch, whether the print queue or a person sent it) is the record of its run, so a
 * run is a dispatch with a `run_state`: `printing` until a status read shows how it ended, then
 * `completed`, `cancelled` or `failed`, once, whichever process reads that status first.
 */
export type RunState = 'printing' | JobEnding
export const verdicts = ['good', 'failed'] as const
export type Verdict = (typeof verdicts)[number]

/** A run as the API shows it. */
export interface PrintRun {
  id: string
  printer_id: string | null
  printer_name: string
  model_id: string | null
  file_id: string | null
  file_name: string
  job_id: string | null
  user_id: string | null
  state: RunState
  started_at: string
  ended_at: string | null
  duration_s: number | null
  reason: string | null
  filament_mm: number | null
  filament_g: number | null
  filament_source: 'file' | 'printer' | null
  verdict: Verdict | null
  note: string | null
  photo: { content_type: string; size: number } | null
}

/** A history's totals over all its runs, not one page. */
export interface RunSummary {
  runs: number
  printing: number
  completed: number
  cancelled: number
  failed: number
  /** Completed over ended runs; null before any ended. */
  success_rate: number | null
  filament_mm: number
  filament_g: number
}

/**
 * How the run of `remote` ended, by one status: the printer reports the job over (completed,
 * cancelled, failed), or it is in error; null while the run goes on. `remote` null takes whatever
 * job the printer shows. The print queue settles its jobs by the same rule.
 */
export function runEnding(
  status: PrinterStatus,
  remote: string | null,
): { outcome: JobEnding; reason: string | null } | null {
  const job = status.job
  const ours = job !== null && (remote === null || showsFile(status, remote))
  if (ours && job.ended === 'completed') return { outcome: 'completed', reason: null }
  if (ours && job.ended) return { outcome: job.ended, reason: `the printer reports the job ${job.ended}` }
  if (status.state === 'error')
    return { outcome: 'failed', reason: `the printer is in error${status.reason ? ` (${status.reason})` : ''}` }
  return null
}

const baseName = (name: string | null) => name?.replace(/^.*\//, '') ?? null

/** Whether the printer's current (or last) job is of the file stored on it as `remote` (hosts show it with or without its folder). */
export const showsFile = (status: PrinterStatus, remote: string) =>
  status.job !== null && baseName(status.job.file_name) === baseName(remote)

/** The filament a print-ready file states it uses, from its stored metadata (G-code, or a sliced 3MF's first plate). */
export function filamentOfFile(format: string, metadataJson: string): { mm: number | null; g: number | null } {
  const metadata = JSON.parse(metadataJson) as {
    gcode?: { filament?: { length_mm?: unknown; weight_g?: unknown } }
    plates?: Array<{ weight_g?: unknown; filaments?: Array<{ used_m?: unknown; used_g?: unknown }> }>
  }
  if (format === 'gcode') {
    const filament = metadata.gcode?.filament
    return { mm: positive(filament?.length_mm), g: positive(filament?.weight_g) }
  }
  const plate = metadata.plates?.[0]
  const metres = sum((plate?.filaments ?? []).map((filament) => positive(filament.used_m)))
  const grams = positive(plate?.weight_g) ?? sum((plate?.filaments ?? []).map((filament) => positive(filament.used_g)))
  return { mm: metres === null ? null : Math.round(metres * 1000 * 100) / 100, g: grams }
}

const positive = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null
const sum = (values: (number | null)[]): number | null => {
  const known = values.filter((value) => value !== null)
  return known.length === 0 ? null : known.reduce((total, value) => total + value, 0)
}

/** The run columns of a send seen printing its file at `at`, or seen already done with it. */
export const runStarted = (sight: 'printing' | 'completed', at: string) => ({
  run_state: sight,
  run_started_at: at,
  run_ended_at: sight === 'completed' ? at : null,
})

/**
 * Ends this printer's running runs that a status read shows over (see `runEnding`). A stale
 * picture ends nothing. The update names the state it replaces, so of several processes reading
 * one status only one writes the end. A run whose file stated no filament takes the printer's
 * report of it, where the host gives one.
 */
export async function settleRuns(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger'>,
  printerId: string,
  status: PrinterStatus & { stale?: boolean },
): Promise<void> {
  if (status.stale) return
  const { db } = deps.database
  const running = await db
    .selectFrom('dispatches')
    .select(['id', 'remote_name', 'filament_mm'])
    .where('printer_id', '=', printerId)
    .where('run_state', '=', 'printing')
    .execute()
  for (const run of running) {
    const ending = runEnding(status, run.remote_name)
    if (!ending) continue
    const reported = positive(status.job?.filament_used_mm)
    const fromPrinter = run.filament_mm === null && reported !== null
    const ended = await db
      .updateTable('dispatches')
      .set({
        run_state: ending.outcome,
        run_ended_at: deps.clock.now().toISOString(),
        run_reason: ending.reason,
        ...(fromPrinter ? { filament_mm: reported, filament_source: 'printer' } : {}),
      })
      .where('id', '=', run.id)
      .where('run_state', '=', 'printing')
      .executeTakeFirst()
    if (Number(ended.numUpdatedRows) > 0)
      deps.logger.info('print run ended', { dispatch_id: run.id, printer_id: printerId, outcome: ending.outcome })
  }
}

/** Whose history: one model's (the runs of the files it holds now) or one printer's. */
export type RunOwner = { modelId: string } | { printerId: string }

const ownerScope = (owner: RunOwner) =>
  'modelId' in owner ? `runs:model:${owner.modelId}` : `runs:printer:${owner.printerId}`

type RunRow = Selectable<DispatchesTable> & { model_id: string | null }

function runsOf(db: Kysely<Database>, owner: RunOwner) {
  return db
    .selectFrom('dispatches')
    .leftJoin('files', 'files.id', 'dispatches.file_id')
    .where('dispatches.run_state', 'is not', null)
    .$if('modelId' in owner, (qb) => qb.where('files.model_id', '=', 'modelId' in owner ? owner.modelId : ''))
    .$if('printerId' in owner, (qb) =>
      qb.where('dispatches.printer_id', '=', 'printerId' in owner ? owner.printerId : ''),
    )
}

async function requireOwner(db: Kysely<Database>, owner: RunOwner): Promise<void> {
  const found =
    'modelId' in owner
      ? await db.selectFrom('models').select('id').where('id', '=', owner.modelId).executeTakeFirst()
      : await db.selectFrom('printers').select('id').where('id', '=', owner.printerId).executeTakeFirst()
  if (!found)
    throw new VaultError(
      'not_found',
      'modelId' in owner ? `No model has the id ${owner.modelId}.` : `No printer has the id ${owner.printerId}.`,
    )
}

export const toPrintRun = (row: RunRow): PrintRun => ({
  id: row.id,
  printer_id: row.printer_id,
  printer_name: row.printer_name,
  model_id: row.model_id,
  file_id: row.file_id,
  file_name: row.file_name,
  job_id: row.job_id,
  user_id: row.user_id,
  state: row.run_state as RunState,
  started_at: row.run_started_at ?? row.created_at,
  ended_at: row.run_ended_at,
  duration_s:
    row.run_ended_at && row.run_started_at
      ? Math.max(0, Math.round((Date.parse(row.run_ended_at) - Date.parse(row.run_started_at)) / 1000))
      : null,
  reason: row.run_reason,
  filament_mm: row.filament_mm,
  filament_g: row.filament_g,
  filament_source: row.filament_source as PrintRun['filament_source'],
  verdict: row.verdict as Verdict | null,
  note: row.note,
  photo: row.photo_sha256 ? { content_type: row.photo_type ?? 'image/jpeg', size: row.photo_size ?? 0 } : null,
})

/**
 * One page of a model's or a printer's print runs, newest start first, with the summary of all
 * of them. Cursors are signed and bound to the history they page (see `encodeCursor`).
 */
export async function listRuns(
  deps: Pick<PrintersDeps, 'database'> & Pick<AccountsDeps, 'keys'>,
  owner: RunOwner,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ items: PrintRun[]; next_cursor: string | null; summary: RunSummary }> {
  const { db } = deps.database
  await requireOwner(db, owner)
  const key = deps.keys.current().signingKeys.current.secret
  const scope = ownerScope(owner)
  const after = page.cursor === undefined ? undefined : decodeCursor(key, scope, page.cursor)
  const rows = await runsAfter(db, owner, after, page.limit + 1)
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined
  return {
    items: rows.slice(0, page.limit).map(toPrintRun),
    next_cursor: last ? encodeCursor(key, scope, { value: last.run_started_at ?? '', id: last.id }) : null,
    summary: await summarise(db, owner),
  }
}

async function summarise(db: Kysely<Database>, owner: RunOwner): Promise<RunSummary> {
  const groups = await runsOf(db, owner)
    .select((eb) => [
      'dispatches.run_state',
      eb.fn.countAll<number | string>().as('runs'),
      eb.fn.sum<number | string | null>('dispatches.filament_mm').as('mm'),
      eb.fn.sum<number | string | null>('dispatches.filament_g').as('g'),
    ])
    .groupBy('dispatches.run_state')
    .execute()
  const summary: RunSummary = {
    runs: 0,
    printing: 0,
    completed: 0,
    cancelled: 0,
    failed: 0,
    success_rate: null,
    filament_mm: 0,
    filament_g: 0,
  }
  for (const group of groups) {
    const runs = Number(group.runs)
    summary.runs += runs
    if (group.run_state && group.run_state in summary) summary[group.run_state as RunState] += runs
    summary.filament_mm += Number(group.mm ?? 0)
    summary.filament_g += Number(group.g ?? 0)
  }
  summary.filament_mm = Math.round(summary.filament_mm * 100) / 100
  summary.filament_g = Math.round(summary.filament_g * 100) / 100
  const ended = summary.completed + summary.cancelled + summary.failed
  summary.success_rate = ended === 0 ? null : summary.completed / ended
  return summary
}

/**
 * Every run of a history, newest first, a page at a time, for its CSV export: a farm's years of
 * runs are streamed, never held at once. An unknown model or printer throws before the first page.
 */
export async function* eachRunPage(
  deps: Pick<PrintersDeps, 'database'>,
  owner: RunOwner,
  pageSize = 500,
): AsyncGenerator<PrintRun[]> {
  const { db } = deps.database
  await requireOwner(db, owner)
  let after: { value: string; id: string } | undefined
  for (;;) {
    const rows = await runsAfter(db, owner, after, pageSize + 1)
    yield rows.slice(0, pageSize).map(toPrintRun)
    const last = rows[pageSize - 1]
    if (rows.length <= pageSize || !last) return
    after = { value: last.run_started_at ?? '', id: last.id }
  }
}

/** A history's runs after `after` (keyset: start, then id, both descending), at most `limit`. */
const runsAfter = (
  db: Kysely<Database>,
  owner: RunOwner,
  after: { value: string | number; id: string } | undefined,
  limit: number,
) =>
  runsOf(db, owner)
    .selectAll('dispatches')
    .select('files.model_id')
    .$if(after !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('dispatches.run_started_at', '<', String(after?.value)),
          eb.and([
            eb('dispatches.run_started_at', '=', String(after?.value)),
            eb('dispatches.id', '<', after?.id ?? ''),
          ]),
        ]),
      ),
    )
    .orderBy('dispatches.run_started_at', 'desc')
    .orderBy('dispatches.id', 'desc')
    .limit(limit)
    .execute()

async function getRunRow(db: Kysely<Database>, id: string): Promise<RunRow> {
  const row = await db
    .selectFrom('dispatches')
    .leftJoin('files', 'files.id', 'dispatches.file_id')
    .selectAll('dispatches')
    .select('files.model_id')
    .where('dispatches.id', '=', id)
    .where('dispatches.run_state', 'is not', null)
    .executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No print run has the id ${id}.`)
  return row
}

export async function getRun(deps: Pick<PrintersDeps, 'database'>, id: string): Promise<PrintRun> {
  return toPrintRun(await getRunRow(deps.database.db, id))
}

/** A run's verdict, note and photo are its sender's to give (an admin's too), once it has ended. */
async function reviewableRun(db: Kysely<Database>, principal: Principal, id: string): Promise<RunRow> {
  const row = await getRunRow(db, id)
  if (row.user_id !== principal.userId && !hasRole(principal.role, 'admin'))
    throw new VaultError('forbidden', 'Only the person who sent this print (or an admin) may review it.')
  if (row.run_state === 'printing')
    throw new VaultError('job_state_conflict', 'The print is still running; review it once it has ended.')
  return row
}

/** Sets a run's verdict and note; a field left out stays, null clears it. */
export async function reviewRun(
  deps: Pick<PrintersDeps, 'database'>,
  principal: Principal,
  id: string,
  review: { verdict?: Verdict | null | undefined; note?: string | null | undefined },
): Promise<PrintRun> {
  const { db } = deps.database
  await reviewableRun(db, principal, id)
  await db
    .updateTable('dispatches')
    .set({
      ...(review.verdict !== undefined ? { verdict: review.verdict } : {}),
      ...(review.note !== undefined ? { note: review.note === '' ? null : review.note } : {}),
    })
    .where('id', '=', id)
    .execute()
  return getRun(deps, id)
}

type PhotoDeps = Pick<PrintersDeps, 'database' | 'clock'> & StorageDeps

const photoTypes = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' } as const

/**
 * Stores a photo of the print (JPEG, PNG or WebP, told by its first bytes, never by the name or the
 * declared type) in the blob store and names it on the run; a photo it replaces is released.
 */
export async function putRunPhoto(
  deps: PhotoDeps,
  principal: Principal,
  id: string,
  bytes: Uint8Array,
): Promise<PrintRun> {
  const { db } = deps.database
  const row = await reviewableRun(db, principal, id)
  const kind = imageKind(bytes)
  if (kind !== 'jpg' && kind !== 'png' && kind !== 'webp')
    throw new VaultError('unsupported_media_type', 'A photo must be a JPEG, PNG or WebP image.')
  try {
    imageSize(bytes, kind)
  } catch {
    throw new VaultError(
      'unsupported_media_type',
      `The ${kind.toUpperCase()} image is damaged: its header is cut short.`,
    )
  }
  const stored = await putContentAddressed(deps.blobs, deps.createSha256, streamOf(bytes))
  await db
    .updateTable('dispatches')
    .set({ photo_sha256: stored.sha256, photo_type: photoTypes[kind], photo_size: stored.size })
    .where('id', '=', id)
    .execute()
  if (row.photo_sha256 && row.photo_sha256 !== stored.sha256)
    await releaseContent(deps, { blobs: [row.photo_sha256], thumbnails: [] })
  return getRun(deps, id)
}

export async function deleteRunPhoto(deps: PhotoDeps, principal: Principal, id: string): Promise<void> {
  const { db } = deps.database
  const row = await reviewableRun(db, principal, id)
  if (!row.photo_sha256) throw new VaultError('not_found', 'This print run has no photo.')
  await db
    .updateTable('dispatches')
    .set({ photo_sha256: null, photo_type: null, photo_size: null })
    .where('id', '=', id)
    .execute()
  await releaseContent(deps, { blobs: [row.photo_sha256], thumbnails: [] })
}

/** Where a run's photo lies in the blob store, for serving it. */
export async function runPhoto(
  deps: Pick<PrintersDeps, 'database'>,
  id: string,
): Promise<{ key: string; contentType: string; size: number }> {
  const row = await getRunRow(deps.database.db, id)
  if (!row.photo_sha256) throw new VaultError('not_found', 'This print run has no photo.')
  return { key: row.photo_sha256, contentType: row.photo_type ?? 'image/jpeg', size: row.photo_size ?? 0 }
}
