import type { ExpressionBuilder, Kysely, Selectable } from 'kysely'
import type { Database, PrintJobState, PrintJobsTable, PrintTargetKind } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { type CursorPosition, decodeCursor, encodeCursor, invalidCursor } from '../library/cursor.js'

export type PrintJobRow = Selectable<PrintJobsTable>

/** Where a job may print: one printer, any printer of a group (a tag on printers), or any compatible printer. */
export type PrintTarget = { kind: 'printer'; printer_id: string } | { kind: 'group'; group: string } | { kind: 'any' }

/** A job as the API shows it. */
export interface PrintJob {
  id: string
  model_id: string
  file_ids: string[]
  copies: number
  copies_done: number
  /** The index in `file_ids` of the file the current copy prints next. */
  next_file: number
  target: PrintTarget
  priority: number
  position: number
  state: PrintJobState
  attempts: number
  max_attempts: number
  wait_reason: string | null
  last_error: string | null
  accept_warnings: boolean
  printer_id: string | null
  dispatch_id: string | null
  created_by: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
  /** When its print was seen paused (from the vault, or at the printer itself); null while it prints on. */
  paused_at: string | null
}

/** The states a job can still leave for a printer from. */
export const openStates: readonly PrintJobState[] = ['queued', 'held']

const targetOf = (row: PrintJobRow): PrintTarget => {
  const kind: PrintTargetKind = row.target_kind
  if (kind === 'printer') return { kind, printer_id: row.target_printer_id ?? '' }
  if (kind === 'group') return { kind, group: row.target_group ?? '' }
  return { kind }
}

export const fileIdsOf = (row: Pick<PrintJobRow, 'file_ids'>): string[] => JSON.parse(row.file_ids) as string[]

export const toPrintJob = (row: PrintJobRow): PrintJob => ({
  id: row.id,
  model_id: row.model_id,
  file_ids: fileIdsOf(row),
  copies: row.copies,
  copies_done: row.copies_done,
  next_file: row.next_file,
  target: targetOf(row),
  priority: row.priority,
  position: row.position,
  state: row.state,
  attempts: row.attempts,
  max_attempts: row.max_attempts,
  wait_reason: row.wait_reason,
  last_error: row.last_error,
  accept_warnings: row.accept_warnings === 1,
  printer_id: row.printer_id,
  dispatch_id: row.dispatch_id,
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
  started_at: row.started_at,
  finished_at: row.finished_at,
  paused_at: row.paused_at,
})

export async function getJobRow(db: Kysely<Database>, id: string): Promise<PrintJobRow> {
  const row = await db.selectFrom('print_jobs').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No print job has the id ${id}.`)
  return row
}

/** Where a job stands in the queue's order: higher priority first, then position, then id. */
export type QueuePlace = Pick<PrintJobRow, 'priority' | 'position' | 'id'>

/** The jobs that stand after `place` in the queue's order. */
const standingAfter = (eb: ExpressionBuilder<Database, 'print_jobs'>, place: QueuePlace) =>
  eb.or([
    eb('priority', '<', place.priority),
    eb.and([eb('priority', '=', place.priority), eb('position', '>', place.position)]),
    eb.and([eb('priority', '=', place.priority), eb('position', '=', place.position), eb('id', '>', place.id)]),
  ])

/**
 * The waiting job standing just before `place` in the queue's order, or, without `place`, the last
 * waiting job; `except` left out.
 */
export const lastWaitingBefore = (db: Kysely<Database>, except: string, place?: QueuePlace) =>
  db
    .selectFrom('print_jobs')
    .selectAll()
    .where('state', 'in', openStates)
    .where('id', '!=', except)
    .$if(place !== undefined, (qb) =>
      qb.where((eb) => {
        const { priority, position, id } = place as QueuePlace
        return eb.or([
          eb('priority', '>', priority),
          eb.and([eb('priority', '=', priority), eb('position', '<', position)]),
          eb.and([eb('priority', '=', priority), eb('position', '=', position), eb('id', '<', id)]),
        ])
      }),
    )
    .orderBy('priority', 'asc')
    .orderBy('position', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()

/**
 * One page of jobs in the queue's order (the order the dispatcher offers them in), those in
 * `states`, after `after` when given, at most `limit`; with `forPrinter` only those whose target
 * may name that printer.
 */
export function listJobRows(
  db: Kysely<Database>,
  filter: {
    states: readonly PrintJobState[]
    limit: number
    after?: QueuePlace | undefined
    /** Rows skipped before the page (a place in the list). */
    offset?: number
    /** A job left out (the one being moved). */
    except?: string
    forPrinter?: { id: string; groups: string[] } | undefined
  },
): Promise<PrintJobRow[]> {
  const { forPrinter, after, except } = filter
  return db
    .selectFrom('print_jobs')
    .selectAll()
    .where('state', 'in', filter.states)
    .$if(except !== undefined, (qb) => qb.where('id', '!=', except ?? ''))
    .$if(forPrinter !== undefined, (qb) =>
      qb.where((eb) =>
        eb.or([
          eb('target_kind', '=', 'any'),
          eb.and([eb('target_kind', '=', 'printer'), eb('target_printer_id', '=', forPrinter?.id ?? '')]),
          ...(forPrinter?.groups.length
            ? [eb.and([eb('target_kind', '=', 'group'), eb('target_group', 'in', forPrinter.groups)])]
            : []),
        ]),
      ),
    )
    .$if(after !== undefined, (qb) => qb.where((eb) => standingAfter(eb, after as QueuePlace)))
    .orderBy('priority', 'desc')
    .orderBy('position')
    .orderBy('id')
    .$if(filter.offset !== undefined, (qb) => qb.offset(filter.offset ?? 0))
    .limit(filter.limit)
    .execute()
}

/**
 * A page of the jobs in `states` in the queue's order, with a signed cursor to the next page
 * (`library/cursor.ts`): the place of its last job, so a page follows on whatever was claimed or
 * moved meanwhile. A cursor altered or made for other states is refused (400 `invalid_cursor`).
 */
export async function queuePage(
  db: Kysely<Database>,
  key: Uint8Array,
  filter: { states: readonly PrintJobState[]; limit: number; cursor?: string | undefined },
): Promise<{ items: PrintJobRow[]; next_cursor: string | null }> {
  const scope = `queue:${filter.states.join(',')}`
  const after = filter.cursor === undefined ? undefined : placeOf(decodeCursor(key, scope, filter.cursor))
  const rows = await listJobRows(db, { states: filter.states, limit: filter.limit + 1, after })
  const last = rows.length > filter.limit ? rows[filter.limit - 1] : undefined
  return {
    items: rows.slice(0, filter.limit),
    next_cursor: last
      ? encodeCursor(key, scope, { value: JSON.stringify([last.priority, last.position]), id: last.id })
      : null,
  }
}

function placeOf(cursor: CursorPosition): QueuePlace {
  const value = typeof cursor.value === 'string' ? (JSON.parse(cursor.value) as unknown) : null
  if (!Array.isArray(value) || value.length !== 2 || !value.every((part) => typeof part === 'number'))
    throw invalidCursor('The cursor is malformed.')
  return { priority: value[0] as number, position: value[1] as number, id: cursor.id }
}

/**
 * Every job in `states` in the queue's order, read a page at a time as the caller goes on (the
 * dispatcher mostly stops at the first that fits). Pages follow on from the last row read, so jobs
 * claimed meanwhile shift nothing.
 */
export async function* jobsInOrder(
  db: Kysely<Database>,
  filter: { states: readonly PrintJobState[]; forPrinter?: { id: string; groups: string[] } },
  pageSize = 50,
): AsyncGenerator<PrintJobRow> {
  let after: PrintJobRow | undefined
  for (;;) {
    const page = await listJobRows(db, { ...filter, limit: pageSize, after })
    yield* page
    if (page.length < pageSize) return
    after = page.at(-1)
  }
}

/** The queued jobs in the queue's order, a page at a time; with `forPrinter` only those that may go to it. */
export const queuedJobs = (db: Kysely<Database>, forPrinter?: { id: string; groups: string[] }, pageSize = 50) =>
  jobsInOrder(db, { states: ['queued'], ...(forPrinter ? { forPrinter } : {}) }, pageSize)
