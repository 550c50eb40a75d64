import type { ExpressionBuilder, Insertable, Kysely, UpdateObject } from 'kysely'
import type { Database, PrintJobState, PrintJobsTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import type { EventType } from '../events/event-types.js'
import type { EventsDeps } from '../events/events-deps.js'
import { recordEvents } from '../events/publish-event.js'
import { fileIdsOf, getJobRow, openStates, type PrintJobRow } from './print-job.js'

/**
 * Every change of a print job's state, one function per transition. Each is one conditional
 * UPDATE that names the states (and, for the dispatcher's, the lease) it leaves from, so of two
 * processes changing one job only one succeeds; each answers whether it happened. This is the one
 * place a job's state changes: the event a change is told as (`job.started`…) commits in the
 * same transaction, so the event stream and webhooks hear of every change once.
 */
export type JobDeps = Pick<EventsDeps, 'database' | 'clock' | 'logger' | 'events'>

type Update = UpdateObject<Database, 'print_jobs'>
type Changes = Update | ((eb: ExpressionBuilder<Database, 'print_jobs'>) => Update)

async function transition(deps: JobDeps, id: string, from: From, changes: Changes, told?: EventType): Promise<boolean> {
  const changed = await deps.database.db.transaction().execute(async (trx) => {
    const done = await update(trx, id, from, changes)
    if (done && told) await recordEvents(trx, deps, [await jobEvent(trx, told, id)])
    return done
  })
  if (changed && told) deps.events.signal.notify()
  return changed
}

/**
 * A job's event: what it is, where it prints, how far it got and why it last failed, with its
 * model's and printer's names for the messages people read (ntfy, Discord).
 */
async function jobEvent(db: Kysely<Database>, type: EventType, id: string) {
  const row = await db
    .selectFrom('print_jobs')
    .innerJoin('models', 'models.id', 'print_jobs.model_id')
    .leftJoin('printers', 'printers.id', 'print_jobs.printer_id')
    .select([
      'print_jobs.id',
      'print_jobs.model_id',
      'models.name as model_name',
      'print_jobs.state',
      'print_jobs.printer_id',
      'printers.name as printer_name',
      'print_jobs.copies',
      'print_jobs.copies_done',
      'print_jobs.attempts',
      'print_jobs.last_error',
    ])
    .where('print_jobs.id', '=', id)
    .executeTakeFirstOrThrow()
  const { id: jobId, ...data } = row
  return { type, subject: `job:${jobId}`, data: { job_id: jobId, ...data } }
}

/** The states a change leaves from; the lease owner and the fields it must still find, when it names them. */
interface From {
  states: readonly PrintJobState[]
  owner?: string
  matches?: Partial<PrintJobRow>
  /** Only a job its print is paused on (true) or not (false). */
  paused?: boolean
}

async function update(db: Kysely<Database>, id: string, from: From, changes: Changes): Promise<boolean> {
  const result = await db
    .updateTable('print_jobs')
    .set(changes)
    .where('id', '=', id)
    .where('state', 'in', from.states)
    .$if(from.owner !== undefined, (qb) => qb.where('lease_owner', '=', from.owner ?? ''))
    .$if(from.matches?.attempts !== undefined, (qb) => qb.where('attempts', '=', from.matches?.attempts ?? 0))
    .$if(from.matches?.copies_done !== undefined, (qb) => qb.where('copies_done', '=', from.matches?.copies_done ?? 0))
    .$if(from.matches?.next_file !== undefined, (qb) => qb.where('next_file', '=', from.matches?.next_file ?? 0))
    .$if(from.paused !== undefined, (qb) => qb.where('paused_at', from.paused ? 'is not' : 'is', null))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A person's change: done, or a 409 naming the state that forbids it (404 for no such job). */
async function byPerson(deps: JobDeps, id: string, done: boolean, verb: string): Promise<PrintJobRow> {
  const row = await getJobRow(deps.database.db, id)
  if (!done) throw new VaultError('job_state_conflict', `The job is ${row.state}; it cannot be ${verb}.`)
  return row
}

const waiting = 'waiting for the next dispatch'

/** A new job enters the queue. */
export async function queueJob(
  deps: JobDeps,
  job: Omit<Insertable<PrintJobsTable>, 'id' | 'state' | 'wait_reason' | 'created_at' | 'updated_at'> & { now: string },
): Promise<PrintJobRow> {
  const { now, ...values } = job
  const id = crypto.randomUUID()
  const row = await deps.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('print_jobs')
      .values({ ...values, id, state: 'queued', wait_reason: waiting, created_at: now, updated_at: now })
      .execute()
    await recordEvents(trx, deps, [await jobEvent(trx, 'job.queued', id)])
    return getJobRow(trx, id)
  })
  deps.events.signal.notify()
  return row
}

export async function holdJob(deps: JobDeps, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    deps,
    id,
    { states: ['queued'] },
    { state: 'held', wait_reason: 'held', updated_at: now },
  )
  return byPerson(deps, id, done, 'held (only a queued job can)')
}

export async function releaseJob(deps: JobDeps, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    deps,
    id,
    { states: ['held'] },
    { state: 'queued', wait_reason: waiting, updated_at: now },
    'job.queued',
  )
  return byPerson(deps, id, done, 'released (only a held job can)')
}

/** A job not yet on a printer ends cancelled; one printing is stopped on the printer, which the queue then records. */
export async function cancelJob(deps: JobDeps, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    deps,
    id,
    { states: ['queued', 'held'] },
    { state: 'cancelled', wait_reason: null, finished_at: now, updated_at: now },
    'job.cancelled',
  )
  return byPerson(deps, id, done, 'cancelled from the queue (a job on a printer is stopped there)')
}

/** A failed or cancelled job queued again, its failures forgotten and its copies done kept. */
export async function requeueJob(deps: JobDeps, id: string, now: string): Promise<PrintJobRow> {
  const done = await transition(
    deps,
    id,
    { states: ['failed', 'cancelled'] },
    { state: 'queued', attempts: 0, wait_reason: waiting, finished_at: null, updated_at: now },
    'job.queued',
  )
  return byPerson(deps, id, done, 're-queued (only a failed or cancelled job can)')
}

/** The dispatcher takes a queued job for one printer, under its lease. */
export const claimJob = (
  deps: JobDeps,
  claim: { id: string; owner: string; printerId: string; now: string; leaseUntil: string },
) =>
  transition(
    deps,
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
  deps: JobDeps,
  claim: { id: string; owner: string; now: string; leaseUntil: string },
): Promise<boolean> {
  const result = await deps.database.db
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
  deps: JobDeps,
  sent: { id: string; owner: string; dispatchId: string | null; remoteName: string | null; now: string },
) =>
  transition(
    deps,
    sent.id,
    { states: ['dispatching'], owner: sent.owner },
    (eb) => ({
      state: 'printing',
      dispatch_id: sent.dispatchId,
      remote_name: sent.remoteName,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      started_at: eb.fn.coalesce('started_at', eb.val(sent.now)),
      updated_at: sent.now,
    }),
    'job.started',
  )

/** The send did not start a print: back in the queue, saying why. */
export const sendFailed = (deps: JobDeps, failed: { id: string; owner: string; reason: string; now: string }) =>
  transition(
    deps,
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
    'job.retrying',
  )

/**
 * The vault cannot tell whether the job's current part printed: a send left by a stopped process
 * whose printer shows that file's print ended, or a print whose end it never saw. Held, saying why,
 * for a person to look (counted as printed, released to print again, or cancelled), never sent
 * twice on a guess. `from` names the state it leaves, and for a left send the lease it was taken over under.
 */
export const partUncertain = (
  deps: JobDeps,
  held: {
    id: string
    from: { states: ['dispatching']; owner: string } | { states: ['printing'] }
    reason: string
    now: string
  },
) =>
  transition(
    deps,
    held.id,
    held.from,
    {
      state: 'held',
      lease_owner: null,
      lease_until: null,
      paused_at: null,
      last_error: held.reason,
      wait_reason: `held: ${held.reason}`,
      updated_at: held.now,
    },
    'job.retrying',
  )

/** The printer finished the job's current file: the next file of the set, the next copy, or done. */
export async function partPrinted(deps: JobDeps, row: PrintJobRow, now: string): Promise<boolean> {
  const after = afterPart(row, now)
  return transition(
    deps,
    row.id,
    { states: ['printing'], matches: { copies_done: row.copies_done, next_file: row.next_file } },
    { ...after.changes, paused_at: null },
    after.finished ? 'job.completed' : 'job.part_printed',
  )
}

/** A job once its next part printed: the next file of the set, the next copy, or done. */
function afterPart(row: PrintJobRow, now: string): { finished: boolean; changes: Update } {
  const lastFile = row.next_file + 1 >= fileIdsOf(row).length
  const copiesDone = lastFile ? row.copies_done + 1 : row.copies_done
  const finished = copiesDone >= row.copies
  return {
    finished,
    changes: {
      state: finished ? 'completed' : 'queued',
      copies_done: copiesDone,
      next_file: lastFile ? 0 : row.next_file + 1,
      wait_reason: finished ? null : waiting,
      finished_at: finished ? now : null,
      updated_at: now,
    },
  }
}

/**
 * A person counts a waiting job's next part as printed: one the vault could not confirm after it
 * stopped mid-send or whose end it did not see (see `partUncertain`), or one printed outside the queue. A held job goes back to
 * the queue for what is left.
 */
export async function markPrinted(deps: JobDeps, id: string, now: string): Promise<PrintJobRow> {
  const row = await getJobRow(deps.database.db, id)
  const after = afterPart(row, now)
  const done = await transition(
    deps,
    id,
    { states: openStates, matches: { copies_done: row.copies_done, next_file: row.next_file } },
    { ...after.changes, last_error: null },
    after.finished ? 'job.completed' : 'job.queued',
  )
  return byPerson(deps, id, done, 'counted as printed (only a queued or held job can)')
}

/** The print failed or was stopped on the printer: queued again until `max_attempts` failures, then failed. */
export async function printFailed(deps: JobDeps, row: PrintJobRow, reason: string, now: string): Promise<boolean> {
  const attempts = row.attempts + 1
  const exhausted = attempts >= row.max_attempts
  return transition(
    deps,
    row.id,
    { states: ['printing'], matches: { attempts: row.attempts } },
    {
      state: exhausted ? 'failed' : 'queued',
      attempts,
      paused_at: null,
      last_error: reason,
      wait_reason: exhausted ? null : `the last print failed (${attempts} of ${row.max_attempts}): ${reason}`,
      finished_at: exhausted ? now : null,
      updated_at: now,
    },
    exhausted ? 'job.failed' : 'job.retrying',
  )
}

/** A person paused the job's print from the vault, and the printer was seen paused. */
export const printPaused = (deps: JobDeps, id: string, now: string) =>
  transition(deps, id, { states: ['printing'], paused: false }, { paused_at: now, updated_at: now }, 'job.paused')

/** A person resumed the job's paused print from the vault, and the printer was seen printing again. */
export const printResumed = (deps: JobDeps, id: string, now: string) =>
  transition(deps, id, { states: ['printing'], paused: true }, { paused_at: null, updated_at: now }, 'job.resumed')

/**
 * A person stopped the job's print from the vault: the job ends cancelled for good, its remaining
 * copies with it (no retry, the printer not held: nothing failed). Re-queueing it prints what is left.
 */
export const printCancelled = (deps: JobDeps, id: string, reason: string, now: string) =>
  transition(
    deps,
    id,
    { states: ['printing'] },
    { state: 'cancelled', paused_at: null, last_error: reason, wait_reason: null, finished_at: now, updated_at: now },
    'job.cancelled',
  )
