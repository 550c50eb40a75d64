import type { Kysely, Selectable } from 'kysely'
import type { BedClearingState, BedClearingsTable, Database } from '../db/schema.js'
import type { EventInput } from '../events/publish-event.js'
import { recordEvents } from '../events/publish-event.js'
import { connectPrinter, observePrinter, type PrinterRow } from '../printers/printers.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import type { ObservedStatus } from '../printers/status-cache.js'

/**
 * Bed clearing by script, for printers that eject their parts (belt printers, auto-eject setups).
 * After a job, a printer set to clear by `script` goes through one run, kept in `bed_clearings`
 * so that any process (a restart, a second replica) carries it on:
 *
 * 1. `cooling`: the vault polls the printer until its bed reports a temperature below the
 *    threshold (a printer that reports none, errs, or whose bed is still warm after an hour, is held);
 * 2. `running`: the process that moved it there runs the script under a lease it renews; a run
 *    found `running` with a lapsed lease was interrupted, and is never run a second time: the
 *    printer is held for a person to look at;
 * 3. `ran`: a fresh status must show the printer idle, without an error or a job running, within
 *    the script's time; then the bed counts as cleared (by the script) and the queue feeds it.
 *
 * A failure at any step leaves the bed not clear, holds the printer with the reason (a person
 * releases it) and is published as `printer.bed_clearing_failed`.
 */
export type ClearingDeps = Pick<
  PrintersDeps,
  'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events' | 'service'
>

type ClearingRow = Selectable<BedClearingsTable>

/** What the run came to in this step: the bed is clear now, a run goes on, or the printer is held. */
export interface ClearingStep {
  outcome: 'cleared' | 'clearing' | 'held'
  /** A script this step started; it settles its run itself. */
  script?: Promise<void>
}

const openStates: BedClearingState[] = ['cooling', 'running', 'ran']

/**
 * How long a bed may take to cool. A bed still warm after an hour is kept hot (a print's end G-code
 * or the firmware leaves its heater on): waiting on would hold the queue back forever, unseen.
 */
const coolingLimitMs = 60 * 60_000

/** The run under way on the printer, if any. */
const openRun = (db: Kysely<Database>, printerId: string) =>
  db
    .selectFrom('bed_clearings')
    .selectAll()
    .where('printer_id', '=', printerId)
    .where('state', 'in', openStates)
    .orderBy('created_at', 'desc')
    .executeTakeFirst()

/**
 * One step of the clearing run of a printer set to clear by script whose bed is occupied, by
 * what `status` shows. The caller holds the printer's lease (see the dispatcher), so one process
 * steps one printer at a time.
 */
export async function stepClearing(
  deps: ClearingDeps,
  printer: PrinterRow,
  status: ObservedStatus,
  options: { leaseMs: number },
): Promise<ClearingStep> {
  const { db } = deps.database
  let run = await openRun(db, printer.id)
  if (!run) {
    // A job still on the bed, or a printer not seen idle yet: nothing to clear.
    if (status.state !== 'idle') return { outcome: 'clearing' }
    run = await beginRun(deps, printer, status)
  }
  if (run.state === 'cooling') return cool(deps, printer, run, status, options)
  if (run.state === 'running') return running(deps, printer, run)
  return confirm(deps, printer, run)
}

const bedOf = (status: ObservedStatus) => status.temperatures.bed?.actual ?? null
const subjectOf = (printer: PrinterRow) => `printer:${printer.id}`

/** An event of the run: the printer, the phase it is in and what it waits for. */
const clearingEvent = (
  type: EventInput['type'],
  printer: PrinterRow,
  run: ClearingRow,
  extra: Record<string, unknown> = {},
): EventInput => ({
  type,
  subject: subjectOf(printer),
  data: {
    printer_id: printer.id,
    printer_name: printer.name,
    clearing_id: run.id,
    bed_c: run.bed_c,
    below_c: run.below_c,
    ...extra,
  },
})

/**
 * Changes the run from one of `from` (and, when given, under `owner`'s lease), with the event
 * told in the same transaction; whether it happened. `also` writes more in that transaction.
 */
async function moveRun(
  deps: ClearingDeps,
  run: ClearingRow,
  from: { states: BedClearingState[]; owner?: string },
  changes: Partial<ClearingRow>,
  event: (moved: ClearingRow) => EventInput | null,
  also?: (trx: Kysely<Database>) => Promise<void>,
): Promise<boolean> {
  const now = deps.clock.now().toISOString()
  const moved = await deps.database.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('bed_clearings')
      .set({ ...changes, updated_at: now })
      .where('id', '=', run.id)
      .where('state', 'in', from.states)
      .$if(from.owner !== undefined, (qb) => qb.where('lease_owner', '=', from.owner ?? ''))
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 0) return false
    await also?.(trx)
    const told = event({ ...run, ...changes })
    if (told) await recordEvents(trx, deps, [told])
    return true
  })
  if (moved) deps.events.signal.notify()
  return moved
}

async function beginRun(deps: ClearingDeps, printer: PrinterRow, status: ObservedStatus): Promise<ClearingRow> {
  const now = deps.clock.now().toISOString()
  const run: ClearingRow = {
    id: crypto.randomUUID(),
    printer_id: printer.id,
    state: 'cooling',
    script: printer.bed_clear_script ?? '',
    below_c: printer.bed_clear_below_c ?? 0,
    timeout_s: printer.bed_clear_timeout_s ?? 0,
    bed_c: bedOf(status),
    detail: null,
    lease_owner: null,
    lease_until: null,
    deadline_at: null,
    created_at: now,
    updated_at: now,
    ended_at: null,
  }
  await deps.database.db.transaction().execute(async (trx) => {
    await trx.insertInto('bed_clearings').values(run).execute()
    await recordEvents(trx, deps, [clearingEvent('printer.bed_clearing', printer, run, { phase: 'cooling' })])
  })
  deps.events.signal.notify()
  deps.logger.info('bed clearing begins', { printer_id: printer.id, clearing_id: run.id })
  return run
}

/** Ends the run as failed, holds the printer with the reason, and tells it; the bed stays not clear. */
async function failRun(
  deps: ClearingDeps,
  printer: PrinterRow,
  run: ClearingRow,
  from: { states: BedClearingState[]; owner?: string },
  why: string,
): Promise<ClearingStep> {
  const now = deps.clock.now().toISOString()
  const reason = `the bed could not be cleared by script: ${why}; look at the bed, then release the printer`
  await moveRun(
    deps,
    run,
    from,
    { state: 'failed', detail: why, ended_at: now, lease_owner: null, lease_until: null },
    (moved) => clearingEvent('printer.bed_clearing_failed', printer, moved, { reason: why }),
    async (trx) => {
      await trx
        .updateTable('printers')
        .set({ held_reason: reason, held_since: now })
        .where('id', '=', printer.id)
        .execute()
    },
  )
  deps.logger.warn('bed clearing failed', { printer_id: printer.id, clearing_id: run.id, reason: why })
  return { outcome: 'held' }
}

async function cool(
  deps: ClearingDeps,
  printer: PrinterRow,
  run: ClearingRow,
  status: ObservedStatus,
  options: { leaseMs: number },
): Promise<ClearingStep> {
  const { db } = deps.database
  if (status.state === 'error') return failRun(deps, printer, run, { states: ['cooling'] }, errorText(status))
  // Offline, or busy with something else: the bed is looked at again next time.
  if (status.state !== 'idle') return { outcome: 'clearing' }
  const bed = bedOf(status)
  if (bed === null)
    return failRun(
      deps,
      printer,
      run,
      { states: ['cooling'] },
      'the printer reports no bed temperature, so the vault cannot tell that the bed cooled',
    )
  if (bed >= run.below_c) {
    const coolingMs = deps.clock.now().getTime() - Date.parse(run.created_at)
    if (coolingMs > coolingLimitMs)
      return failRun(
        deps,
        printer,
        run,
        { states: ['cooling'] },
        `the bed was still at ${bed} °C, not below ${run.below_c} °C, ${coolingLimitMs / 60_000} minutes after the print; is its heater left on?`,
      )
    if (bed !== run.bed_c)
      await db
        .updateTable('bed_clearings')
        .set({ bed_c: bed, updated_at: deps.clock.now().toISOString() })
        .where('id', '=', run.id)
        .where('state', '=', 'cooling')
        .execute()
    return { outcome: 'clearing' }
  }
  const owner = deps.service.instanceId
  const now = deps.clock.now()
  const started = await moveRun(
    deps,
    run,
    { states: ['cooling'] },
    {
      state: 'running',
      bed_c: bed,
      lease_owner: owner,
      lease_until: new Date(now.getTime() + options.leaseMs).toISOString(),
      deadline_at: new Date(now.getTime() + run.timeout_s * 1000).toISOString(),
    },
    (moved) => clearingEvent('printer.bed_clearing', printer, moved, { phase: 'running' }),
  )
  if (!started) return { outcome: 'clearing' }
  deps.logger.info('bed clearing script runs', { printer_id: printer.id, clearing_id: run.id, bed_c: bed })
  return { outcome: 'clearing', script: runScript(deps, printer, { ...run, lease_owner: owner }, options) }
}

const errorText = (status: ObservedStatus) => `the printer is in error${status.reason ? ` (${status.reason})` : ''}`

/**
 * Runs the script, renewing the run's lease while it runs (Moonraker answers only once Klipper
 * has run it), and settles the run: `ran`, or failed with the host's reason.
 */
async function runScript(
  deps: ClearingDeps,
  printer: PrinterRow,
  run: ClearingRow,
  options: { leaseMs: number },
): Promise<void> {
  const owner = deps.service.instanceId
  const renew = () =>
    deps.database.db
      .updateTable('bed_clearings')
      .set({ lease_until: new Date(deps.clock.now().getTime() + options.leaseMs).toISOString() })
      .where('id', '=', run.id)
      .where('state', '=', 'running')
      .where('lease_owner', '=', owner)
      .execute()
      .catch((error: Error) => deps.logger.warn('renewing a bed clearing lease failed', { error: error.message }))
  const timer = setInterval(renew, options.leaseMs / 3)
  try {
    const provider = await connectPrinter(deps, printer)
    if (!provider.runGcode) throw new Error(`its provider (${printer.provider}) runs no G-code`)
    await provider.runGcode(run.script, { timeoutMs: run.timeout_s * 1000 })
    await moveRun(
      deps,
      run,
      { states: ['running'], owner },
      { state: 'ran', lease_owner: null, lease_until: null },
      () => null,
    )
  } catch (error) {
    const why = `the script failed: ${error instanceof Error ? error.message : String(error)}`
    await failRun(deps, printer, run, { states: ['running'], owner }, why)
  } finally {
    clearInterval(timer)
  }
}

/** A run some process is running: wait, unless its lease lapsed (the process stopped mid-script). */
async function running(deps: ClearingDeps, printer: PrinterRow, run: ClearingRow): Promise<ClearingStep> {
  if (run.lease_until !== null && run.lease_until >= deps.clock.now().toISOString()) return { outcome: 'clearing' }
  return failRun(
    deps,
    printer,
    run,
    { states: ['running'], ...(run.lease_owner ? { owner: run.lease_owner } : {}) },
    'the vault stopped while the clearing script ran, so it is not known whether the script finished; it is not run twice',
  )
}

/**
 * The script ran: a fresh status must show the printer idle, without an error or a job running,
 * before the bed counts as clear; a printer busy with the script is given until the run's deadline.
 */
async function confirm(deps: ClearingDeps, printer: PrinterRow, run: ClearingRow): Promise<ClearingStep> {
  const { status } = await observePrinter(deps, printer, { fresh: true })
  const from = { states: ['ran' as const] }
  if (status.state === 'error') return failRun(deps, printer, run, from, errorText(status))
  if (status.state === 'offline')
    return failRun(
      deps,
      printer,
      run,
      from,
      `the printer went offline after the script (${status.reason ?? 'no answer'})`,
    )
  const jobRunning = status.job !== null && status.job.ended === null
  if (status.state === 'idle' && !jobRunning) {
    const now = deps.clock.now().toISOString()
    const cleared = await moveRun(
      deps,
      run,
      from,
      { state: 'cleared', detail: null, ended_at: now },
      (moved) => clearingEvent('printer.bed_cleared', printer, moved, { by: 'script', user_id: null }),
      async (trx) => {
        await trx
          .updateTable('printers')
          .set({ bed_occupied_since: null, bed_cleared_at: status.asked_at })
          .where('id', '=', printer.id)
          .execute()
      },
    )
    if (cleared) deps.logger.info('bed cleared by script', { printer_id: printer.id, clearing_id: run.id })
    return { outcome: cleared ? 'cleared' : 'clearing' }
  }
  if (run.deadline_at !== null && deps.clock.now().toISOString() > run.deadline_at)
    return failRun(
      deps,
      printer,
      run,
      from,
      `the printer was still ${status.state} ${run.timeout_s} s after the script began`,
    )
  return { outcome: 'clearing' }
}
