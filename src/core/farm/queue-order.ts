import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import { getJobRow, jobsInOrder, lastWaitingBefore, listJobRows, openStates, type PrintJobRow } from './print-job.js'

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
  let around = await neighbours(db, id, to)
  if (tooTight(around)) {
    await spreadPositions(db)
    around = await neighbours(db, id, to)
  }
  const { previous, next } = around
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

interface Around {
  previous?: PrintJobRow | undefined
  next?: PrintJobRow | undefined
}

/**
 * The waiting jobs the moved one goes between, itself left out: the one named in `before` and
 * the one just before it, or those at `position` (1 is the front; past the end is the end).
 * Read by place, never by listing the queue, whatever its length.
 */
async function neighbours(
  db: Kysely<Database>,
  id: string,
  to: { before?: string | undefined; position?: number | undefined },
): Promise<Around> {
  if (to.before !== undefined) {
    const next = await db
      .selectFrom('print_jobs')
      .selectAll()
      .where('id', '=', to.before)
      .where('id', '!=', id)
      .where('state', 'in', openStates)
      .executeTakeFirst()
    if (!next)
      throw unprocessable('No waiting job has the id named in `before`.', [
        { path: 'body.before', message: 'no waiting job has this id' },
      ])
    return { previous: await lastWaitingBefore(db, id, next), next }
  }
  const index = (to.position ?? 1) - 1
  const rows = await listJobRows(db, {
    states: openStates,
    except: id,
    offset: Math.max(index - 1, 0),
    limit: index === 0 ? 1 : 2,
  })
  if (index === 0) return { next: rows[0] }
  if (rows.length > 0) return { previous: rows[0], next: rows[1] }
  // Past the end: after the last waiting job.
  return { previous: await lastWaitingBefore(db, id) }
}

const tooTight = ({ previous, next }: Around) =>
  next !== undefined && previous !== undefined && Math.abs(next.position - previous.position) < tightestGap

/** Numbers the waiting jobs' positions 1, 2, 3… again in their order, however many there are. */
async function spreadPositions(db: Kysely<Database>): Promise<void> {
  // Their order read first, then renumbered: renumbering while paging would move rows past the page's end.
  const ids: string[] = []
  for await (const row of jobsInOrder(db, { states: openStates }, 500)) ids.push(row.id)
  for (const [index, jobId] of ids.entries())
    await db
      .updateTable('print_jobs')
      .set({ position: index + 1 })
      .where('id', '=', jobId)
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
