import type { ExpressionBuilder, Insertable, Kysely, UpdateObject } from 'kysely'
import type { Database, PrintJobState, PrintJobsTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { fileIdsOf, getJobRow, type PrintJobRow } from './print-job.js'

/**
 * Every change of a print job's state, one function per transition. Each is one conditional
 * UPDATE that names the states (and, for the dispatcher's, the lease) it leaves from, so of two
 * processes changing one job only one succeeds; each answers whether it happened. This is the one
 * place a job's state changes, so what must follow every change (an event, a notification) is
 * added here.
 */
type Update = UpdateObject<Database, 'print_jobs'>
type Changes = Update | ((eb: ExpressionBuilder<Database, 'print_jobs'>) => Update)

async function transition(
  db: Kysely<Database>,
  id: string,
  from: { states: readonly PrintJobState[]; owner?: string; matches?: Partial<PrintJobRow> },
  changes: Changes,
): Promise<boolean> {
  const result = await db
    .updateTable('print_jobs')
    .set(changes)
    .where('id', '=', id)
    .where('state', 'in', from.states)
    .$if(from.owner !== undefined, (qb) => qb.where('lease_owner', '=', from.owner ?? ''))
    .$if(from.matches?.attempts !== undefined, (qb) => qb.where('attempts', '=', from.matches?.attempts ?? 0))
    .$if(from.matches?.copies_done !== undefined, (qb) => qb.where('copies_done', '=', from.matches?.copies_done ?? 0))
    .$if(from.matches?.next_file !== undefined, (qb) => qb.where('next_file', '=', from.matches?.next_file ?? 0))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A person's change: done, or a 409 naming the state that forbids it (404 for no such job). */
async function byPerson(db: Kysely<Database>, id: string, done: boolean, verb: string): Promise<PrintJobRow> {
  const row = await getJobRow(db, id)
  if (!done) throw new VaultError('job_state_conflict', `The job is ${row.state}; it cannot be ${verb}.`)
  return row
}

const waiting = 'waiting for the next dispatch'

/** A new job enters the queue. */
export async function queueJob(
  db: Kysely<Database>,
  job: Omit<Insertable<PrintJobsTable>, 'id' | 'state' | 'wait_reason' | 'created_at' | 'updated_at'> & { now: string },
): Promise<PrintJobRow> {
  const { now, ...values } = job
  const id = crypto.randomUUID()
  await db
    .insertInto('print_jobs')
    .values({ ...values, id, state: 'queued', wait_reason: waiting, created_at: now, updated_at: now })
    .execute()
  return getJobRow(db, id)
}

export async function holdJob(db: Kysely<Database>, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(db, id, { states: ['queued'] }, { state: 'held', wait_reason: 'held', updated_at: now })
  return byPerson(db, id, done, 'held (only a queued job can)')
}

export async function releaseJob(db: Kysely<Database>, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    db,
    id,
    { states: ['held'] },
    { state: 'queued', wait_reason: waiting, updated_at: now },
  )
  return byPerson(db, id, done, 'released (only a held job can)')
}

/** A job not yet on a printer ends cancelled; one printing is stopped on the printer, which the queue then records. */
export async function cancelJob(db: Kysely<Database>, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    db,
    id,
    { states: ['queued', 'held'] },
    { state: 'cancelled', wait_reason: null, finished_at: now, updated_at: now },
  )
  return byPerson(db, id, done, 'cancelled from the queue (a job on a printer is stopped there)')
}

/** A failed or cancelled job queued again, its failures forgotten and its copies done kept. */
export async function requeueJob(db: Kysely<Database>, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    db,
    id,
    { states: ['failed', 'cancelled'] },
    { state: 'queued', attempts: 0, wait_reason: waiting, finished_at: null, updated_at: now },
  )
  return byPerson(db, id, done, 're-queued (only a failed or cancelled job can)')
}

/** The dispatcher takes a queued job for one printer, under its lease. */
export const claimJob = (
  db: Kysely<Database>,
  claim: { id: string; owner: string; printerId: string; now: string; leaseUntil: string },
) =>
  transition(
    db,
    claim.id,
    { states: ['queued'] },
    {
      state: 'dispatching',
      printer_id: claim.printerId,
      lease_owner: claim.owner,
      lease_until: claim.leaseUntil,
      wait_reason: null,
      updated_at: claim.now,
    },
  )

/**
 * A job left `dispatching` by a process that stopped (its lease lapsed) is taken over, to be
 * settled by what the printer and the dispatch record show.
 */
export async function takeOverSend(
  db: Kysely<Database>,
  claim: { id: string; owner: string; now: string; leaseUntil: string },
): Promise<boolean> {
  const result = await db
    .updateTable('print_jobs')
    .set({ lease_owner: claim.owner, lease_until: claim.leaseUntil })
    .where('id', '=', claim.id)
    .where('state', '=', 'dispatching')
    .where('lease_until', '<', claim.now)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** The printer shows it prints the job's file. */
export const jobSent = (
  db: Kysely<Database>,
  sent: { id: string; owner: string; dispatchId: string | null; remoteName: string | null; now: string },
) =>
  transition(db, sent.id, { states: ['dispatching'], owner: sent.owner }, (eb) => ({
    state: 'printing',
    dispatch_id: sent.dispatchId,
    remote_name: sent.remoteName,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    started_at: eb.fn.coalesce('started_at', eb.val(sent.now)),
    updated_at: sent.now,
  }))

/** The send did not start a print: back in the queue, saying why. */
export const sendFailed = (db: Kysely<Database>, failed: { id: string; owner: string; reason: string; now: string }) =>
  transition(
    db,
    failed.id,
    { states: ['dispatching'], owner: failed.owner },
    {
      state: 'queued',
      lease_owner: null,
      lease_until: null,
      last_error: failed.reason,
      wait_reason: `the last send failed: ${failed.reason}`,
      updated_at: failed.now,
    },
  )

/** The printer finished the job's current file: the next file of the set, the next copy, or done. */
export async function partPrinted(db: Kysely<Database>, row: PrintJobRow, now: string): Promise<boolean> {
  const lastFile = row.next_file + 1 >= fileIdsOf(row).length
  const copiesDone = lastFile ? row.copies_done + 1 : row.copies_done
  const finished = copiesDone >= row.copies
  return transition(
    db,
    row.id,
    { states: ['printing'], matches: { copies_done: row.copies_done, next_file: row.next_file } },
    {
      state: finished ? 'completed' : 'queued',
      copies_done: copiesDone,
      next_file: lastFile ? 0 : row.next_file + 1,
      wait_reason: finished ? null : waiting,
      finished_at: finished ? now : null,
      updated_at: now,
    },
  )
}

/** The print failed or was stopped on the printer: queued again until `max_attempts` failures, then failed. */
export async function printFailed(
  db: Kysely<Database>,
  row: PrintJobRow,
  reason: string,
  now: string,
): Promise<boolean> {
  const attempts = row.attempts + 1
  const exhausted = attempts >= row.max_attempts
  return transition(
    db,
    row.id,
    { states: ['printing'], matches: { attempts: row.attempts } },
    {
      state: exhausted ? 'failed' : 'queued',
      attempts,
      last_error: reason,
      wait_reason: exhausted ? null : `the last print failed (${attempts} of ${row.max_attempts}): ${reason}`,
      finished_at: exhausted ? now : null,
      updated_at: now,
    },
  )
}
