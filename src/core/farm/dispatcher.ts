import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { isBinaryGcodeName } from '../ingest/file-formats.js'
import { jobOnBed, markBedOccupied } from '../printers/bed-clearance.js'
import { remoteFileName, sendToPrinter } from '../printers/dispatch.js'
import type { DispatchRecord } from '../printers/dispatch-record.js'
import { runEnding, showsFile } from '../printers/print-runs.js'
import { connectPrinter, listPrinterRows, observePrinter, type PrinterRow } from '../printers/printers.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import type { ObservedStatus } from '../printers/status-cache.js'
import { stepClearing } from './bed-clearing.js'
import { checkCompatibility, mayPrint, type PrinterFacts } from './compatibility.js'
import { groupsOf, holdPrinter, leasePrinter, printerFactsOf, unleasePrinter } from './farm-printers.js'
import {
  claimJob,
  jobSent,
  partPrinted,
  partUncertain,
  printFailed,
  printPaused,
  printResumed,
  sendFailed,
  takeOverSend,
} from './job-transitions.js'
import { type PrintFacts, printFactsOf } from './print-facts.js'
import { fileIdsOf, type PrintJobRow, queuedJobs } from './print-job.js'

export type DispatcherDeps = Pick<
  PrintersDeps,
  'database' | 'blobs' | 'clock' | 'logger' | 'keys' | 'printers' | 'service' | 'liveness' | 'events'
>

interface PassOptions {
  /**
   * How long a process holds a printer it feeds and a job it sends; renewed while a send goes on,
   * so only a stopped process's lease lapses.
   */
  leaseMs: number
}

/**
 * What a pass works with: its deps, its lease, the files and printer profiles it has read (each
 * once), what it has done so far and the jobs it has taken.
 */
interface Pass {
  deps: DispatcherDeps
  leaseMs: number
  fileOf: (id: string) => Promise<QueueFile | null>
  factsOf: (printer: PrinterRow) => Promise<PrinterFacts>
  done: DispatchPass
  taken: Set<string>
}

/** What one pass did: the jobs it sent, and those it settled as printed or failed. */
export interface DispatchPass {
  sent: { job_id: string; printer_id: string }[]
  printed: string[]
  failed: string[]
  /** Bed-clearing scripts this pass started; each settles its run when the printer answers. */
  scripts: { printer_id: string; settled: Promise<void> }[]
}

/** Why a compatible printer could not take a job in this pass. */
type Blocker = 'held' | 'bed' | 'clearing' | 'busy' | 'offline' | 'fed elsewhere'
const blockerText: Record<Blocker, string> = {
  held: 'held after a failed print',
  bed: 'bed not confirmed clear',
  clearing: 'clearing the bed by script',
  busy: 'busy',
  offline: 'offline',
  'fed elsewhere': 'being fed by another process',
}

/** One stored file as the queue sends it: its facts, and whether only some providers print it. */
interface QueueFile {
  name: string
  facts: PrintFacts
  kind: 'package' | 'binary' | null
}

/**
 * One pass of the print queue over every printer. For each printer it can lease (one process feeds a
 * printer at a time, across replicas): settles the job printing on it (a finished file advances the
 * job, a failed print re-queues it and holds the printer), settles a send a stopped process left,
 * and, when the printer is ready, not held and its bed confirmed clear, sends it the first queued
 * job (priority, then position) whose target names it and whose file fits it, through the safe send
 * of `dispatch.ts`. A job is claimed by a conditional UPDATE before it is sent, so two passes never
 * send one job. Queued jobs that stay are told why they wait.
 */
export async function dispatchNext(
  deps: DispatcherDeps,
  options: PassOptions = { leaseMs: defaultLeaseMs },
): Promise<DispatchPass> {
  const pass = openPass(deps, options)
  const printers = await listPrinterRows(deps)
  const blockers = new Map<string, Blocker>()
  for (const printer of printers) {
    const blocker = await tendPrinter(pass, printer)
    if (blocker) blockers.set(printer.id, blocker)
  }
  await explainWaits(pass, printers, blockers)
  return pass.done
}

/**
 * The pass for printers that may just have become free (a bed confirmed clear, a clearing script
 * ended): only they are looked at, so the first job each can print goes at once, whatever the size
 * of the farm. The wait reasons are left to the next whole pass. Says which printers another pass
 * held meanwhile, for the caller to look at again once that pass has ended.
 */
export async function dispatchTo(
  deps: DispatcherDeps,
  printerIds: string[],
  options: PassOptions = { leaseMs: defaultLeaseMs },
): Promise<DispatchPass & { heldElsewhere: string[] }> {
  const pass = openPass(deps, options)
  const heldElsewhere: string[] = []
  // `in ()` is no SQL: a pass over no printer reads nothing.
  if (printerIds.length === 0) return { ...pass.done, heldElsewhere }
  const printers = await deps.database.db.selectFrom('printers').selectAll().where('id', 'in', printerIds).execute()
  for (const printer of printers)
    if ((await tendPrinter(pass, printer)) === 'fed elsewhere') heldElsewhere.push(printer.id)
  return { ...pass.done, heldElsewhere }
}

function openPass(deps: DispatcherDeps, options: PassOptions): Pass {
  const { db } = deps.database
  const files = memo<QueueFile | null>()
  const facts = memo<PrinterFacts>()
  return {
    deps,
    leaseMs: options.leaseMs,
    fileOf: (id) => files(id, () => readQueueFile(db, id)),
    factsOf: (printer) => facts(printer.id, () => printerFactsOf(db, printer)),
    done: { sent: [], printed: [], failed: [], scripts: [] },
    taken: new Set(),
  }
}

/**
 * One printer's turn in a pass, under its lease: settles what is on it, steps its bed clearing,
 * and feeds it a job when it can take one. What kept it from taking one, or null when one went.
 */
async function tendPrinter(pass: Pass, listed: PrinterRow): Promise<Blocker | null> {
  const { deps, done } = pass
  const { db } = deps.database
  const owner = deps.service.instanceId
  const now = deps.clock.now()
  const leased = await leasePrinter(db, {
    id: listed.id,
    owner,
    now: now.toISOString(),
    until: new Date(now.getTime() + pass.leaseMs).toISOString(),
  })
  if (!leased) return 'fed elsewhere'
  try {
    // Read again under the lease: the listing is as old as the pass, and another process may have
    // sent the printer a job, seen it end and settled it since (its bed now used).
    const { row, status: observed } = await observePrinter(deps, await reread(db, listed.id))
    let status = observed
    const onPrinter = await db
      .selectFrom('print_jobs')
      .selectAll()
      .where('printer_id', '=', row.id)
      .where('state', 'in', ['printing', 'dispatching'])
      .execute()
    let occupied = false
    for (const job of onPrinter) {
      const settled = await settle(pass, row, status, job)
      if (settled === 'printed') done.printed.push(job.id)
      if (settled === 'failed') done.failed.push(job.id)
      if (settled === 'on printer') occupied = true
    }
    // Settling a failed print holds the printer: read again to see it.
    let current = onPrinter.length > 0 ? await reread(db, row.id) : row
    let blocker = blockerOf(current, status, occupied)
    if (blocker === 'bed' && current.bed_clear_by === 'script') {
      const step = await stepClearing(deps, current, status, { leaseMs: pass.leaseMs })
      if (step.script) done.scripts.push({ printer_id: row.id, settled: step.script })
      if (step.outcome === 'cleared') {
        ;({ row: current, status } = await observePrinter(deps, await reread(db, row.id)))
        blocker = blockerOf(current, status, occupied)
      } else blocker = step.outcome === 'held' ? 'held' : 'clearing'
    }
    if (blocker) return blocker
    const sent = await feed(pass, current)
    if (!sent) return 'busy'
    done.sent.push({ job_id: sent, printer_id: row.id })
    return null
  } finally {
    await unleasePrinter(db, listed.id, owner)
  }
}

/** Reads each key once: a pass reads a file's metadata or a printer's profile once, however many jobs ask. */
function memo<T>(): (key: string, read: () => Promise<T>) => Promise<T> {
  const seen = new Map<string, Promise<T>>()
  return (key, read) => {
    const known = seen.get(key)
    if (known) return known
    const reading = read()
    seen.set(key, reading)
    return reading
  }
}

/** A minute: a send that takes longer renews its leases as it goes. */
const defaultLeaseMs = 60_000

/**
 * Keeps this process's leases on a job and its printer from lapsing while a send goes on (a large
 * upload can outlast any fixed lease); stops when `work` settles.
 */
async function renewingLeases<T>(pass: Pass, ids: { job: string; printer: string }, work: Promise<T>): Promise<T> {
  const { deps, leaseMs } = pass
  const { db } = deps.database
  const owner = deps.service.instanceId
  const renew = async () => {
    const until = new Date(deps.clock.now().getTime() + leaseMs).toISOString()
    const leases = [
      ['print_jobs', ids.job],
      ['printers', ids.printer],
    ] as const
    for (const [table, id] of leases)
      await db
        .updateTable(table)
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .execute()
  }
  const timer = setInterval(() => {
    renew().catch((error: Error) => deps.logger.warn('renewing a print queue lease failed', { error: error.message }))
  }, leaseMs / 3)
  try {
    return await work
  } finally {
    clearInterval(timer)
  }
}

const reread = (db: Kysely<Database>, id: string) =>
  db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

function blockerOf(row: PrinterRow, status: ObservedStatus, occupied: boolean): Blocker | null {
  if (row.held_reason !== null) return 'held'
  if (occupied) return 'busy'
  // A printer clearing its bed by script steps its run whatever it shows: an offline one fails it once the script ran.
  if (row.bed_occupied_since !== null && row.bed_clear_by === 'script') return 'bed'
  if (status.state === 'offline') return 'offline'
  // Whatever the printer's own setting: the queue never sends onto a finished print nobody took off.
  if (row.bed_occupied_since !== null) return 'bed'
  return status.ready ? null : 'busy'
}

async function readQueueFile(db: Kysely<Database>, id: string): Promise<QueueFile | null> {
  const file = await db
    .selectFrom('files')
    .select(['original_name', 'format', 'metadata'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (!file) return null
  return {
    name: file.original_name,
    facts: printFactsOf(file.format, file.metadata),
    kind: file.format === '3mf' ? 'package' : isBinaryGcodeName(file.original_name) ? 'binary' : null,
  }
}

const currentFileId = (job: PrintJobRow) => fileIdsOf(job)[job.next_file] ?? ''

const targets = (job: PrintJobRow, printer: PrinterRow) =>
  job.target_kind === 'any' ||
  (job.target_kind === 'printer' && job.target_printer_id === printer.id) ||
  (job.target_kind === 'group' && groupsOf(printer).includes(job.target_group ?? ''))

/** Whether the job's current file may go to the printer, and if not, why. */
async function placement(
  pass: Pass,
  printer: PrinterRow,
  job: PrintJobRow,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const { deps } = pass
  const file = await pass.fileOf(currentFileId(job))
  if (!file) return { ok: false, why: 'its file was deleted' }
  if (file.kind !== null) {
    const provider = await connectPrinter(deps, printer).catch(() => null)
    const takes = file.kind === 'package' ? provider?.takesSlicedPackages : provider?.takesBinaryGcode
    if (!takes)
      return {
        ok: false,
        why: file.kind === 'package' ? 'it prints no sliced 3MF package' : 'it takes no binary G-code',
      }
  }
  const compatibility = checkCompatibility(file.facts, await pass.factsOf(printer))
  if (mayPrint(compatibility, job.accept_warnings === 1)) return { ok: true }
  if (compatibility.verdict === 'refused') return { ok: false, why: compatibility.reasons.join('; ') }
  return { ok: false, why: `warnings not accepted: ${compatibility.warnings.join('; ')}` }
}

/** Sends the printer the first queued job it may print; the job's id, or null when none went. */
async function feed(pass: Pass, printer: PrinterRow): Promise<string | null> {
  const { deps, taken } = pass
  const { db } = deps.database
  const owner = deps.service.instanceId
  for await (const job of queuedJobs(db, { id: printer.id, groups: groupsOf(printer) })) {
    if (taken.has(job.id)) continue
    if (!(await placement(pass, printer, job)).ok) continue
    const now = deps.clock.now()
    const claimed = await claimJob(deps, {
      id: job.id,
      owner,
      printerId: printer.id,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + pass.leaseMs).toISOString(),
    })
    // Another process took it first; the next job may still go.
    if (!claimed) continue
    taken.add(job.id)
    deps.logger.info('print queue job chosen', { job_id: job.id, printer_id: printer.id })
    await send(pass, printer, job)
    return job.id
  }
  return null
}

/**
 * The safe send of the job's current file; the job goes on printing, or back to the queue with the
 * reason. A send whose start was asked for but not seen printing in time is judged by the printer
 * once more: showing that file printing late, or a run of it ended (it may have printed between two
 * looks, and a host without run ids shows the copy before it the same way), or unable to tell
 * (offline, a stale reading: it may be printing unseen), the job, the printer and the bed are held
 * for a person rather than printed again.
 */
async function send(pass: Pass, printer: PrinterRow, job: PrintJobRow): Promise<void> {
  const { deps } = pass
  const { db } = deps.database
  const owner = deps.service.instanceId
  type Ending = { dispatch: DispatchRecord } | { reason: string } | { uncertain: string }
  const ending = async (): Promise<Ending> => {
    try {
      const { dispatch } = await sendToPrinter(deps, { userId: job.created_by, jobId: job.id }, printer.id, {
        file_id: currentFileId(job),
        start: true,
      })
      if (dispatch.outcome === 'confirmed' || dispatch.outcome === 'preparing') return { dispatch }
      if (dispatch.outcome === 'not_confirmed' && dispatch.remote_name !== null) {
        const { status } = await observePrinter(deps, await reread(db, printer.id), { fresh: true })
        const shown = !tellsItsJob(status)
          ? `cannot tell now (${status.state}${status.stale ? ', a stale reading' : ''})`
          : showsFile(status, dispatch.remote_name) && status.job?.ended
            ? `shows a print of that file ${status.job.ended}`
            : showsFile(status, dispatch.remote_name) && jobOnBed(status.state)
              ? `shows it ${status.state} now`
              : null
        if (shown)
          return {
            uncertain: `${printer.name}: the start of ${dispatch.remote_name} was asked for and not seen printing in time, and the printer ${shown}; check whether this copy printed, then count it or release the job`,
          }
      }
      return { reason: `${printer.name}: ${dispatch.detail}` }
    } catch (error) {
      if (!(error instanceof VaultError)) throw error
      return { reason: `${printer.name}: ${error.message}` }
    }
  }
  const result = await renewingLeases(pass, { job: job.id, printer: printer.id }, ending()).catch(
    (error: Error): Ending => ({ reason: `${printer.name}: the send failed (${error.message})` }),
  )
  const now = deps.clock.now().toISOString()
  if ('dispatch' in result) {
    const { id, remote_name } = result.dispatch
    await jobSent(deps, { id: job.id, owner, dispatchId: id, remoteName: remote_name, now })
  } else if ('uncertain' in result) {
    await holdUncertain(deps, printer, { id: job.id, from: { states: ['dispatching'], owner } }, result.uncertain, now)
  } else {
    await sendFailed(deps, { id: job.id, owner, reason: result.reason, now })
  }
  deps.logger.info('print queue send', {
    job_id: job.id,
    printer_id: printer.id,
    ...('dispatch' in result
      ? { dispatch_id: result.dispatch.id }
      : { reason: 'uncertain' in result ? result.uncertain : result.reason }),
  })
}

type Settled = 'printed' | 'failed' | 'on printer' | 'gone'

/**
 * A job on the printer, by what the printer shows: a finished run of its file advances it (the bed
 * then waits for a confirmation), a failed or stopped one re-queues it and holds the printer; a
 * send a stopped process left is settled by its dispatch record, or by whether the printer prints it.
 */
async function settle(pass: Pass, printer: PrinterRow, status: ObservedStatus, job: PrintJobRow): Promise<Settled> {
  const { deps } = pass
  const { db } = deps.database
  const now = deps.clock.now().toISOString()
  if (job.state === 'dispatching') return settleLeftSend(pass, printer, status, job)
  const ending = runEnding(status, job.remote_name)
  const failure = ending?.reason ?? null
  if (failure) {
    if (await printFailed(deps, job, `${printer.name}: ${failure}`, now)) {
      await holdPrinter(
        db,
        printer.id,
        `a queued job failed on it: ${failure}; release the printer once it is looked at`,
        now,
      )
      deps.logger.warn('print queue job failed', { job_id: job.id, printer_id: printer.id, reason: failure })
      return 'failed'
    }
    return 'gone'
  }
  if (ending?.outcome === 'completed') return (await partPrinted(deps, job, now)) ? 'printed' : 'gone'
  if (job.remote_name !== null && endedUnseen(status, job.remote_name)) {
    // The host lost the job (restarted, its end screen dismissed), someone printed another file,
    // or it never tells how a print ended (a standalone Duet): only a person can say whether it printed.
    const other = status.job && !showsFile(status, job.remote_name) ? `, with ${status.job.file_name}` : ''
    const reason = `${printer.name}: the print of ${job.remote_name} is over (the printer is ${status.state}${other}), and the vault did not see how it ended; check whether it printed, then count it or release the job`
    await holdUncertain(deps, printer, { id: job.id, from: { states: ['printing'] } }, reason, now)
    return 'gone'
  }
  await followPause(deps, status, job, now)
  return 'on printer'
}

/**
 * A printing job whose print is over without the printer saying how: the printer is idle (a known
 * ending was read above), or prints or holds another file. A stale reading tells nothing.
 */
const endedUnseen = (status: ObservedStatus, remote: string) =>
  !status.stale &&
  (status.state === 'idle' || (jobOnBed(status.state) && !showsFile(status, remote) && !unnamedJob(status)))

/** A job the host names no file for (PrusaLink between its status and job answers): not another file, nor ours. */
const unnamedJob = (status: ObservedStatus) => status.job !== null && status.job.file_name === null

/**
 * Keeps the job's pause as the printer shows it: a print paused or resumed at the printer itself
 * (its screen, its own web page, a filament runout) is recorded as one from the vault is.
 */
async function followPause(deps: DispatcherDeps, status: ObservedStatus, job: PrintJobRow, now: string) {
  if (job.remote_name === null || !showsFile(status, job.remote_name) || status.stale) return
  if (status.state === 'paused' && job.paused_at === null) await printPaused(deps, job.id, now)
  if (status.state === 'printing' && job.paused_at !== null) await printResumed(deps, job.id, now)
}

async function settleLeftSend(
  pass: Pass,
  printer: PrinterRow,
  status: ObservedStatus,
  job: PrintJobRow,
): Promise<Settled> {
  const { deps } = pass
  const { db } = deps.database
  const owner = deps.service.instanceId
  const now = deps.clock.now()
  const iso = now.toISOString()
  // The printer alone may tell whether the send started: one that cannot answer now (offline, its
  // firmware lost, a stale reading) may be printing it. The job waits for it, still sending.
  if (!tellsItsJob(status)) return 'on printer'
  const tookOver = await takeOverSend(deps, {
    id: job.id,
    owner,
    now: iso,
    leaseUntil: new Date(now.getTime() + pass.leaseMs).toISOString(),
  })
  if (!tookOver) return 'on printer'
  const recorded = await db
    .selectFrom('dispatches')
    .select(['id', 'outcome', 'remote_name', 'detail'])
    .where('printer_id', '=', printer.id)
    .where('file_id', '=', currentFileId(job))
    .where('created_at', '>=', job.updated_at)
    .orderBy('created_at', 'desc')
    .executeTakeFirst()
  if (recorded && ['confirmed', 'preparing'].includes(recorded.outcome)) {
    await jobSent(deps, { id: job.id, owner, dispatchId: recorded.id, remoteName: recorded.remote_name, now: iso })
    return 'on printer'
  }
  const file = await pass.fileOf(currentFileId(job))
  const expected = file ? remoteFileName(file.name, file.kind === 'package') : null
  if (!recorded && status.job?.ended === null && status.job.file_name === expected) {
    await jobSent(deps, { id: job.id, owner, dispatchId: null, remoteName: expected, now: iso })
    return 'on printer'
  }
  if (!recorded && status.job && status.job.ended !== null && status.job.file_name === expected) {
    // The printer shows this file's print over: this send may have printed it before the vault
    // stopped, or it is an earlier copy's. A person tells; the bed counts as used meanwhile.
    const reason = `${printer.name}: the vault stopped while sending ${expected}, and the printer shows a print of that file ended; check whether this copy printed, then release or cancel the job`
    await holdUncertain(deps, printer, { id: job.id, from: { states: ['dispatching'], owner } }, reason, iso)
    return 'gone'
  }
  const reason = recorded
    ? `${printer.name}: ${recorded.detail}`
    : `${printer.name}: the vault stopped while sending, and the printer does not print it`
  await sendFailed(deps, { id: job.id, owner, reason, now: iso })
  return 'gone'
}

/**
 * The vault cannot tell whether the job's current part printed: the bed counts as used and the
 * printer is held first (so nothing is sent onto a print that may be there), then the job is held
 * for a person to count or release (see `partUncertain`).
 */
async function holdUncertain(
  deps: DispatcherDeps,
  printer: PrinterRow,
  job: Pick<Parameters<typeof partUncertain>[1], 'id' | 'from'>,
  reason: string,
  now: string,
): Promise<void> {
  await markBedOccupied(deps, printer)
  await holdPrinter(deps.database.db, printer.id, reason, now)
  if (await partUncertain(deps, { ...job, reason, now }))
    deps.logger.warn('print queue job uncertain', { job_id: job.id, printer_id: printer.id, reason })
}

const tellsItsJob = (status: ObservedStatus) => !status.stale && !['offline', 'unknown'].includes(status.state)

/** Writes each queued job's wait reason as this pass saw the printers, where it changed. */
async function explainWaits(pass: Pass, printers: PrinterRow[], blockers: Map<string, Blocker>): Promise<void> {
  const { db } = pass.deps.database
  const { taken } = pass
  const current = await Promise.all(printers.map((printer) => reread(db, printer.id)))
  for await (const job of queuedJobs(db, undefined, 500)) {
    if (taken.has(job.id)) continue
    const reason = await waitReason(pass, job, current, blockers)
    if (reason === job.wait_reason) continue
    await db
      .updateTable('print_jobs')
      .set({ wait_reason: reason })
      .where('id', '=', job.id)
      .where('state', '=', 'queued')
      .execute()
  }
}

async function waitReason(
  pass: Pass,
  job: PrintJobRow,
  printers: PrinterRow[],
  blockers: Map<string, Blocker>,
): Promise<string> {
  const candidates = printers.filter((printer) => targets(job, printer))
  if (candidates.length === 0)
    return job.target_kind === 'group'
      ? `no printer is in the group ${job.target_group}`
      : job.target_kind === 'printer'
        ? 'its printer was removed'
        : 'no printer is registered'
  const misfits: string[] = []
  const counts = new Map<Blocker, number>()
  for (const printer of candidates) {
    const placed = await placement(pass, printer, job)
    if (!placed.ok) misfits.push(`${printer.name}: ${placed.why}`)
    else {
      const blocker = blockers.get(printer.id) ?? 'busy'
      counts.set(blocker, (counts.get(blocker) ?? 0) + 1)
    }
  }
  if (counts.size === 0) return `no compatible printer: ${misfits.join('; ')}`
  const waits = [...counts].map(
    ([blocker, count]) => `${blockerText[blocker]} on ${count} printer${count > 1 ? 's' : ''}`,
  )
  const prior = job.last_error ? `; the last attempt: ${job.last_error}` : ''
  return `no compatible printer ready: ${waits.join(', ')}${prior}`
}
