import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import { getJobRow, listJobRows, openStates, type PrintJobRow } from './print-job.js'

/** Positions closer than this are spread out again before a job goes between them. */
const tightestGap = 1e-6

/**
 * Moves a waiting job (queued or held) before another one, or to a place in the list of waiting
 * jobs (1 is the front; past the end is the end). Placed before a job, it takes that job's
 * priority, so it stands where it was put.
 */
export async function moveJob(
  db: Kysely<Database>,
  id: string,
  to: { before?: string | undefined; position?: number | undefined },
  now: string,
): Promise<PrintJobRow> {
  const job = await getJobRow(db, id)
  if (!openStates.includes(job.state))
    throw new VaultError('job_state_conflict', `The job is ${job.state}; only a waiting job can be moved.`)
  if ((to.before === undefined) === (to.position === undefined))
    throw unprocessable('Name either `before` or `position`.', [
      { path: 'body', message: 'needs exactly one of before, position' },
    ])
  let waiting = (await listJobRows(db, { states: openStates })).filter((row) => row.id !== id)
  const index =
    to.position !== undefined
      ? Math.min(to.position - 1, waiting.length)
      : waiting.findIndex((row) => row.id === to.before)
  if (index < 0)
    throw unprocessable('No waiting job has the id named in `before`.', [
      { path: 'body.before', message: 'no waiting job has this id' },
    ])
  if (tooTight(waiting, index)) {
    await spreadPositions(db, waiting)
    waiting = (await listJobRows(db, { states: openStates })).filter((row) => row.id !== id)
  }
  const next = waiting[index]
  const previous = waiting[index - 1]
  const priority = next?.priority ?? previous?.priority ?? job.priority
  const position = placeBetween(
    previous?.priority === priority ? previous.position : undefined,
    next?.priority === priority ? next.position : undefined,
  )
  await db.updateTable('print_jobs').set({ priority, position, updated_at: now }).where('id', '=', id).execute()
  return getJobRow(db, id)
}

function placeBetween(before: number | undefined, after: number | undefined): number {
  if (before !== undefined && after !== undefined) return (before + after) / 2
  if (after !== undefined) return after - 1
  if (before !== undefined) return before + 1
  return 1
}

const tooTight = (waiting: PrintJobRow[], index: number) => {
  const next = waiting[index]
  const previous = waiting[index - 1]
  return next !== undefined && previous !== undefined && Math.abs(next.position - previous.position) < tightestGap
}

/** Numbers the waiting jobs' positions 1, 2, 3… again in their order. */
async function spreadPositions(db: Kysely<Database>, waiting: PrintJobRow[]): Promise<void> {
  for (const [index, row] of waiting.entries())
    await db
      .updateTable('print_jobs')
      .set({ position: index + 1 })
      .where('id', '=', row.id)
      .execute()
}

/** Changes what a job may still change: its priority, its number of tries, whether its warnings are accepted. */
export async function changeJob(
  db: Kysely<Database>,
  id: string,
  changes: { priority?: number | undefined; max_attempts?: number | undefined; accept_warnings?: boolean | undefined },
  now: string,
): Promise<PrintJobRow> {
  const job = await getJobRow(db, id)
  if (['completed', 'cancelled'].includes(job.state))
    throw new VaultError('job_state_conflict', `The job is ${job.state}; it can no longer be changed.`)
  await db
    .updateTable('print_jobs')
    .set({
      updated_at: now,
      ...(changes.priority !== undefined ? { priority: changes.priority } : {}),
      ...(changes.max_attempts !== undefined ? { max_attempts: changes.max_attempts } : {}),
      ...(changes.accept_warnings !== undefined ? { accept_warnings: changes.accept_warnings ? 1 : 0 } : {}),
    })
    .where('id', '=', id)
    .execute()
  return getJobRow(db, id)
}
