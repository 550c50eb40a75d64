import { VaultError } from '../errors.js'
import { markBedOccupied } from '../printers/bed-clearance.js'
import { connectPrinter, getPrinterRow, observePrinter, type PrinterRow } from '../printers/printers.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import { type PrinterControl, PrinterError, type PrinterStatus } from '../printers/provider.js'
import type { ObservedStatus } from '../printers/status-cache.js'
import { printCancelled, printPaused, printResumed } from './job-transitions.js'
import { getJobRow, type PrintJob, type PrintJobRow, toPrintJob } from './print-job.js'

type ControlDeps = Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>

/** The print the caller saw and means: its file, and the host's run id when it showed one. */
export interface ExpectedPrint {
  file_name: string
  run_id?: string | null | undefined
}

/** How a control ended: `confirmed` once a fresh status shows its state, else `unconfirmed` (asked, not yet seen). */
export interface ControlResult {
  control: PrinterControl
  outcome: 'confirmed' | 'unconfirmed'
  detail: string
  status: ObservedStatus
  /** The queue job printing there, as the control left it; null when the print is not the queue's. */
  job: PrintJob | null
}

/** The states each control may be asked in, and what a fresh status must show after it. */
const rules: Record<
  PrinterControl,
  { from: readonly string[]; done: (status: PrinterStatus) => boolean; verb: string; asked: string }
> = {
  pause: { from: ['printing'], done: (status) => status.state === 'paused', verb: 'paused', asked: 'paused' },
  resume: {
    from: ['paused'],
    done: (status) => status.state === 'printing',
    verb: 'printing again',
    asked: 'resumed',
  },
  cancel: {
    from: ['printing', 'paused'],
    asked: 'cancelled',
    // Over: the host shows the run ended (Klipper's `cancelled`, Bambu's FAILED), or no job and not busy.
    done: (status) => (status.job ? status.job.ended !== null : !['printing', 'paused', 'busy'].includes(status.state)),
    verb: 'stopped',
  },
}

const describe = (status: PrinterStatus) => `${status.state}${status.reason ? ` (${status.reason})` : ''}`

/**
 * Pauses, resumes or cancels the print running on a printer, as a person asked from the vault. The
 * caller names the print it saw (`expected`), so a control never reaches a print that started
 * since: a fresh status must show that print (else `print_moved_on`) in a state that allows the
 * control (else `control_not_allowed`); the provider is asked, and a refusal or a failure to reach
 * it is `control_refused`; then fresh statuses are read until the printer shows the state the
 * control leads to, or `confirmMs` passes (a command that got no answer in time is checked the
 * same way: hosts answer some only once they ran). The queue job printing there records it: a
 * confirmed pause or resume marks it (`job.paused`, `job.resumed`); a cancel the printer took ends
 * it `cancelled` for good, whatever copies remain, and the bed then needs clearing as after any print.
 */
export async function controlPrint(
  deps: ControlDeps,
  principal: { userId: string | null },
  printerId: string,
  control: PrinterControl,
  expected: ExpectedPrint,
): Promise<ControlResult> {
  const printer = await getPrinterRow(deps, printerId)
  const provider = await connectPrinter(deps, printer)
  const ask = provider[control]?.bind(provider)
  if (!ask)
    throw new VaultError(
      'control_unsupported',
      `${printer.name}'s provider (${printer.provider}) cannot ${control} a print.`,
    )
  const rule = rules[control]
  const { status: before } = await observePrinter(deps, printer, { fresh: true })
  refuseUnlessExpected(printer, before, expected)
  if (!rule.from.includes(before.state))
    throw new VaultError(
      'control_not_allowed',
      `${printer.name} is ${describe(before)}; a print can be ${rule.asked} only while it is ${rule.from.join(' or ')}.`,
      { fieldErrors: [{ path: 'printer.state', message: before.state }] },
    )
  const job = await queueJobOn(deps, printer, before)

  let answered = true
  try {
    await ask()
  } catch (error) {
    if (!(error instanceof PrinterError)) throw error
    if (error.kind !== 'timeout')
      throw new VaultError('control_refused', `${printer.name} did not ${control} the print: ${error.message}`)
    answered = false
  }
  deps.logger.info('printer control', { printer_id: printer.id, control, user_id: principal.userId })

  const status = await confirm(deps, printer, rule.done)
  const confirmed = rule.done(status)
  const now = deps.clock.now().toISOString()
  let recorded: PrintJobRow | null = job
  if (job && control === 'cancel') {
    const reason = `${printer.name}: cancelled from the vault`
    await printCancelled(deps, job.id, reason, now)
    await markBedOccupied(deps, printer)
    recorded = await getJobRow(deps.database.db, job.id)
  } else if (job && confirmed) {
    await (control === 'pause' ? printPaused : printResumed)(deps, job.id, now)
    recorded = await getJobRow(deps.database.db, job.id)
  }
  const asked = answered ? 'took the command' : 'did not answer the command in time'
  const detail = confirmed
    ? `${printer.name} ${asked} and is ${rule.verb}: ${describe(status)}.`
    : `${printer.name} ${asked}, but is ${describe(status)}, not yet ${rule.verb}; look again shortly.`
  return {
    control,
    outcome: confirmed ? 'confirmed' : 'unconfirmed',
    detail,
    status,
    job: recorded ? toPrintJob(recorded) : null,
  }
}

/** 409 `print_moved_on` unless the printer shows the print the caller named. */
function refuseUnlessExpected(printer: PrinterRow, status: PrinterStatus, expected: ExpectedPrint): void {
  const run = status.job
  const sameFile = run !== null && run.ended === null && run.file_name === expected.file_name
  const sameRun = !expected.run_id || !run?.run_id || run.run_id === expected.run_id
  if (sameFile && sameRun) return
  const now = run && run.ended === null ? `prints ${run.file_name ?? 'a file it does not name'}` : 'runs no print'
  throw new VaultError(
    'print_moved_on',
    `${printer.name} ${now}, not ${expected.file_name}${expected.run_id ? ` (run ${expected.run_id})` : ''}; nothing was asked of it.`,
    {
      fieldErrors: [
        { path: 'printer.file_name', message: run?.ended === null ? (run.file_name ?? 'unnamed') : 'none' },
        ...(run?.run_id ? [{ path: 'printer.run_id', message: run.run_id }] : []),
      ],
    },
  )
}

/** The queue job printing the file the printer shows, if the print is the queue's. */
async function queueJobOn(deps: ControlDeps, printer: PrinterRow, status: PrinterStatus): Promise<PrintJobRow | null> {
  const jobs = await deps.database.db
    .selectFrom('print_jobs')
    .selectAll()
    .where('printer_id', '=', printer.id)
    .where('state', '=', 'printing')
    .execute()
  const fileName = status.job?.file_name ?? null
  return jobs.find((job) => job.remote_name === null || job.remote_name === fileName) ?? null
}

/** Fresh statuses until `done` says the control took effect, or `confirmMs` has passed. */
async function confirm(
  deps: ControlDeps,
  printer: PrinterRow,
  done: (status: PrinterStatus) => boolean,
): Promise<ObservedStatus> {
  const deadline = deps.clock.now().getTime() + deps.printers.confirmMs
  let { status } = await observePrinter(deps, printer, { fresh: true })
  while (!done(status) && deps.clock.now().getTime() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    status = (await observePrinter(deps, printer, { fresh: true })).status
  }
  return status
}
