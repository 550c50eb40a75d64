import type { Kysely, Selectable } from 'kysely'
import type { Database, PrintJobState, PrintJobsTable, PrintTargetKind } from '../db/schema.js'
import { VaultError } from '../errors.js'

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

/**
 * The queued jobs in the queue's order, read a page at a time as the caller goes on (the dispatcher
 * mostly stops at the first that fits), and with `forPrinter` only those whose target may name that
 * printer. Pages follow on from the last row read, so jobs claimed meanwhile shift nothing.
 */
export async function* queuedJobs(
  db: Kysely<Database>,
  forPrinter?: { id: string; groups: string[] },
  pageSize = 50,
): AsyncGenerator<PrintJobRow> {
  let after: PrintJobRow | undefined
  for (;;) {
    const last = after
    const page = await db
      .selectFrom('print_jobs')
      .selectAll()
      .where('state', '=', 'queued')
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
      .$if(last !== undefined, (qb) =>
        qb.where((eb) => {
          const { priority, position, id } = last as PrintJobRow
          return eb.or([
            eb('priority', '<', priority),
            eb.and([eb('priority', '=', priority), eb('position', '>', position)]),
            eb.and([eb('priority', '=', priority), eb('position', '=', position), eb('id', '>', id)]),
          ])
        }),
      )
      .orderBy('priority', 'desc')
      .orderBy('position')
      .orderBy('id')
      .limit(pageSize)
      .execute()
    yield* page
    if (page.length < pageSize) return
    after = page.at(-1)
  }
}

/** Jobs in the queue's order, the order the dispatcher offers them in: higher priority first, then position. */
export async function listJobRows(
  db: Kysely<Database>,
  filter: { states?: readonly PrintJobState[]; limit?: number } = {},
): Promise<PrintJobRow[]> {
  return db
    .selectFrom('print_jobs')
    .selectAll()
    .$if(filter.states !== undefined, (qb) => qb.where('state', 'in', filter.states ?? []))
    .orderBy('priority', 'desc')
    .orderBy('position')
    .orderBy('id')
    .limit(filter.limit ?? 1000)
    .execute()
}
