import type { Selectable } from 'kysely'
import type { DispatchesTable } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import { isBinaryGcodeName } from '../ingest/file-formats.js'
import { acquireLock } from '../runtime/db-lock.js'
import { markBedOccupied } from './bed-clearance.js'
import { type DispatchOutcome, type DispatchRecord, type DispatchStep, toDispatchRecord } from './dispatch-record.js'
import { sightOf } from './job-sight.js'
import { filamentOfFile, runStarted } from './print-runs.js'
import { publishDispatch } from './printer-events.js'
import { connectPrinter, getPrinterRow, type PrinterRow, printerStatus } from './printers.js'
import type { PrintersDeps } from './printers-deps.js'
import { PrinterError, type PrinterProvider, type PrinterStatus } from './provider.js'
import type { ObservedStatus } from './status-cache.js'

/** A file name any of the providers stores as it is; a sliced package keeps its `.3mf`, a binary G-code its `.bgcode`. */
export function remoteFileName(name: string, slicedPackage = false): string {
  const base =
    name
      .replace(/^.*[\\/]/, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '') || 'vault-file'
  if (slicedPackage) return /\.3mf$/i.test(base) ? base.replace(/\.3mf$/i, '.3mf') : `${base}.gcode.3mf`
  // Lower case: Klipper's virtual_sdcard opens only `.gcode`, `.g` and `.gco`, and no host minds.
  return /\.(gcode|gco|g|bgcode)$/i.test(base)
    ? base.replace(/\.\w+$/, (extension) => extension.toLowerCase())
    : `${base}.gcode`
}

const describe = (status: PrinterStatus) => `${status.state}${status.reason ? ` (${status.reason})` : ''}`

/** Who sends: the person calling, or the person who queued the job the print queue sends (`jobId`). */
export interface Sender {
  userId: string | null
  jobId?: string
}

/** A send that got past the checks: its record, whose `outcome` says how it ended. */
export interface SendResult {
  dispatch: DispatchRecord
}

type DispatchDeps = Pick<
  PrintersDeps,
  'database' | 'blobs' | 'clock' | 'logger' | 'keys' | 'printers' | 'service' | 'liveness' | 'events'
>

interface GcodeFile {
  id: string
  original_name: string
  sha256: string
  /** A sliced `.gcode.3mf`: the plate to print (its first sliced plate). */
  plate?: number
  /** The filament the slicer says the print uses. */
  filament: { mm: number | null; g: number | null }
}

/** One send under way: who sends what where, the steps taken and what is known to have happened. */
interface Attempt {
  principal: Sender
  printer: PrinterRow
  file: GcodeFile
  startRequested: boolean
  createdAt: string
  steps: DispatchStep[]
  uploaded: boolean
  started: boolean
  confirmed: boolean
  remoteName: string | null
  /** The printer as the last ready check saw it, before the start: which run it showed then. */
  before: PrinterStatus | null
}

/** How a send ended: the outcome recorded and why, and for a confirmed one the run it saw. */
interface Ending {
  outcome: DispatchOutcome
  detail: string
  run?: 'printing' | 'completed'
}

/**
 * Sends a stored G-code file to a printer and, when asked, starts it, following the rule for
 * small farms: never queue work onto an unconfirmed printer. A fresh status must say `idle`
 * (else `printer_not_ready`, nothing sent); the file is uploaded without auto-start; the status
 * is checked again; the start is asked for; and the printer must then show that it prints,
 * because providers can answer success without starting. Every attempt is recorded, and the
 * record's `outcome` says how it ended (the routes answer it with its HTTP status).
 */
export async function sendToPrinter(
  deps: DispatchDeps,
  principal: Sender,
  printerId: string,
  input: { file_id: string; start: boolean },
): Promise<SendResult> {
  const printer = await getPrinterRow(deps, printerId)
  const file = await findGcodeFile(deps, input.file_id)
  const attempt: Attempt = {
    principal,
    printer,
    file,
    startRequested: input.start,
    createdAt: deps.clock.now().toISOString(),
    steps: [],
    uploaded: false,
    started: false,
    confirmed: false,
    remoteName: null,
    before: null,
  }

  // One send at a time per printer, across every process sharing the database: a second one would
  // pass the same checks and then start onto the first one's job (Klipper answers "SD busy" only
  // after the file is already uploaded). A lock row, not memory, so two replicas cannot both send.
  const lock = await acquireLock(deps.database.db, deps.clock, sendLockName(printer.id), 'send', {
    instanceId: deps.service.instanceId,
    liveness: deps.liveness,
  })
  if (!('held' in lock)) {
    const detail = 'Another send to this printer is under way; nothing was sent.'
    const { dispatch } = await record(deps, attempt, { outcome: 'refused', detail })
    throw new VaultError('send_in_progress', `${printer.name}: ${detail} (dispatch ${dispatch.id})`)
  }
  try {
    return await checkUploadStart(deps, attempt)
  } finally {
    await lock.held
      .release()
      .catch((error: Error) => deps.logger.warn('releasing a printer send lock failed', { error: error.message }))
  }
}

/** The lock a send to one printer holds; its lease lapses within 15 s if the sending process dies. */
const sendLockName = (printerId: string) => `printer-send:${printerId}`

/** The send's steps: check, upload, recheck, start, confirm, each noted on the attempt. */
async function checkUploadStart(deps: DispatchDeps, attempt: Attempt): Promise<SendResult> {
  const { printer, startRequested } = attempt
  await refuseUnlessPrintable(deps, printer, attempt.file)
  const before = await checkReady(deps, attempt, 'check')
  if (!before.ready) {
    const detail = `The printer is ${describe(before)}; nothing was sent.`
    const { dispatch } = await record(deps, attempt, { outcome: 'refused', detail })
    throw notReady(printer, before, dispatch.id)
  }

  const provider = await connectPrinter(deps, printer)
  const uploaded = await upload(deps, attempt, provider)
  if ('outcome' in uploaded) return record(deps, attempt, uploaded)
  const { remoteName } = uploaded
  if (!startRequested) {
    const detail = `Stored on the printer as ${remoteName}; not started, as asked.`
    return record(deps, attempt, { outcome: 'uploaded', detail })
  }

  if (!attempt.started) {
    const again = await checkReady(deps, attempt, 'recheck')
    if (!again.ready) {
      const detail = `Stored as ${remoteName}, but the printer became ${describe(again)}; not started.`
      return record(deps, attempt, { outcome: 'not_ready_after_upload', detail })
    }
    const started = await start(deps, attempt, provider, remoteName)
    if (started !== 'accepted' && started !== 'unanswered') return record(deps, attempt, started)
    return record(deps, attempt, await confirm(deps, attempt, remoteName, started))
  }

  return record(deps, attempt, await confirm(deps, attempt, remoteName, 'accepted'))
}

/** The first sliced plate of a `.gcode.3mf`'s metadata (see `readSlicedPlates`); undefined for another 3MF. */
function firstSlicedPlate(metadata: string): number | undefined {
  const plates = (JSON.parse(metadata) as { plates?: Array<{ index?: unknown }> }).plates
  const index = Array.isArray(plates) ? plates[0]?.index : undefined
  return typeof index === 'number' ? index : undefined
}

async function findGcodeFile(deps: Pick<PrintersDeps, 'database'>, fileId: string): Promise<GcodeFile> {
  const file = await deps.database.db
    .selectFrom('files')
    .select(['id', 'original_name', 'format', 'sha256', 'metadata'])
    .where('id', '=', fileId)
    .executeTakeFirst()
  if (!file)
    throw unprocessable('No stored file has this id.', [
      { path: 'body.file_id', message: 'no stored file has this id' },
    ])
  const plate = file.format === '3mf' ? firstSlicedPlate(file.metadata) : undefined
  const filament = filamentOfFile(file.format, file.metadata)
  if (plate !== undefined)
    return { id: file.id, original_name: file.original_name, sha256: file.sha256, plate, filament }
  if (file.format !== 'gcode') {
    throw new VaultError(
      'not_gcode',
      `${file.original_name} is a ${file.format} file; only G-code (or, to a Bambu Lab printer, a sliced .gcode.3mf) can be sent to a printer. Slice it first.`,
      { fieldErrors: [{ path: 'body.file_id', message: `is a ${file.format} file, not G-code` }] },
    )
  }
  return { id: file.id, original_name: file.original_name, sha256: file.sha256, filament }
}

/**
 * A sliced `.gcode.3mf` goes only to a printer that prints one as it is (Bambu Lab), a binary
 * `.bgcode` only to one that takes binary G-code (PrusaLink): else 422 before the printer is asked
 * anything. A printer whose credentials cannot be read is left to the ready check, which says why.
 */
async function refuseUnlessPrintable(deps: DispatchDeps, printer: PrinterRow, file: GcodeFile): Promise<void> {
  const kind = file.plate !== undefined ? 'package' : isBinaryGcodeName(file.original_name) ? 'binary' : null
  if (kind === null) return
  const provider = await connectPrinter(deps, printer).catch(() => null)
  if (!provider || (kind === 'package' ? provider.takesSlicedPackages : provider.takesBinaryGcode)) return
  const [what, detail] =
    kind === 'package'
      ? ['a sliced 3MF package', 'which only Bambu Lab printers print as it is']
      : [
          'binary G-code (.bgcode)',
          'which only printers that list .bgcode among their accepted extensions (PrusaLink) print',
        ]
  throw new VaultError('not_gcode', `${file.original_name} is ${what}, ${detail}; ${printer.name} takes text G-code.`, {
    fieldErrors: [{ path: 'body.file_id', message: `is ${what}, not text G-code` }],
  })
}

function note(
  deps: Pick<PrintersDeps, 'clock'>,
  attempt: Attempt,
  step: DispatchStep['step'],
  ok: boolean,
  detail: string,
) {
  attempt.steps.push({ step, ok, detail, at: deps.clock.now().toISOString() })
}

/** Step check (and recheck): a fresh status, which must say the printer is ready. */
async function checkReady(deps: DispatchDeps, attempt: Attempt, step: 'check' | 'recheck'): Promise<ObservedStatus> {
  const status = await printerStatus(deps, attempt.printer, { fresh: true })
  note(deps, attempt, step, status.ready, describe(status))
  attempt.before = status
  return status
}

function notReady(printer: PrinterRow, status: PrinterStatus, dispatchId: string): VaultError {
  return new VaultError(
    'printer_not_ready',
    `${printer.name} is not ready: it is ${describe(status)}. Nothing was sent (dispatch ${dispatchId}).`,
    {
      fieldErrors: [
        { path: 'printer.state', message: status.state },
        ...(status.reason ? [{ path: 'printer.reason', message: status.reason }] : []),
      ],
    },
  )
}

/** Step upload: the stored file, streamed to the printer without starting it. */
async function upload(
  deps: DispatchDeps,
  attempt: Attempt,
  provider: PrinterProvider,
): Promise<{ remoteName: string } | Ending> {
  const { file } = attempt
  const blob = await deps.blobs.get(file.sha256)
  if (!blob) throw new VaultError('not_found', `The content of ${file.original_name} is missing from storage.`)
  try {
    const uploaded = await provider.upload({
      name: remoteFileName(file.original_name, file.plate !== undefined),
      size: blob.size,
      stream: blob.stream,
      ...(file.plate !== undefined ? { plate: file.plate } : {}),
    })
    attempt.uploaded = true
    attempt.remoteName = uploaded.remote_name
    attempt.started = uploaded.started
    const startedAlone = uploaded.started ? '; the printer started it on its own' : ''
    note(deps, attempt, 'upload', true, `stored as ${uploaded.remote_name}${startedAlone}`)
    return { remoteName: uploaded.remote_name }
  } catch (error) {
    await blob.stream.cancel().catch(() => {})
    if (!(error instanceof PrinterError)) throw error
    note(deps, attempt, 'upload', false, error.message)
    return { outcome: 'upload_failed', detail: `The upload failed: ${error.message}` }
  }
}

/**
 * Step start: asks the printer to print the uploaded file; an ending when it refuses. A start
 * that gets no answer in time is no refusal: hosts answer only once the command has run (Klipper
 * queues it behind whatever G-code is running), so the confirm step looks at what the printer does.
 */
async function start(
  deps: DispatchDeps,
  attempt: Attempt,
  provider: PrinterProvider,
  remoteName: string,
): Promise<'accepted' | 'unanswered' | Ending> {
  try {
    await provider.start(remoteName)
  } catch (error) {
    if (!(error instanceof PrinterError)) throw error
    if (error.kind === 'timeout') {
      note(deps, attempt, 'start', false, `the start command got ${error.message}; checking whether it prints`)
      return 'unanswered'
    }
    note(deps, attempt, 'start', false, error.message)
    const detail = `Stored as ${remoteName}, but the printer refused to start it: ${error.message}`
    return { outcome: 'start_refused', detail }
  }
  attempt.started = true
  note(deps, attempt, 'start', true, 'the printer accepted the start command')
  return 'accepted'
}

/**
 * Step confirm: polls until the printer shows that it prints the file, or that a run of it began
 * and ended since the start, or `confirmMs` has passed. A printer still preparing the file then
 * leaves the dispatch `preparing`, for later status reads to settle.
 */
async function confirm(
  deps: DispatchDeps,
  attempt: Attempt,
  remoteName: string,
  start: 'accepted' | 'unanswered',
): Promise<Ending> {
  const deadline = deps.clock.now().getTime() + deps.printers.confirmMs
  const look = async () => {
    const status = await printerStatus(deps, attempt.printer, { fresh: true })
    return { status, sight: sightOf(status, remoteName, attempt.before) }
  }
  let seen = await look()
  while (['not_seen', 'preparing'].includes(seen.sight) && deps.clock.now().getTime() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    seen = await look()
  }
  const { status, sight } = seen
  const asked = start === 'accepted' ? 'the start was accepted' : 'the start command got no answer in time'
  if (sight === 'printing' || sight === 'completed') {
    // Printing what was sent, or done with it: it was started, whether or not the start command answered in time.
    attempt.started = true
    attempt.confirmed = true
    note(deps, attempt, 'confirm', true, describe(status))
    if (sight === 'printing') return { outcome: 'confirmed', detail: `Printing ${remoteName}.`, run: 'printing' }
    await markBedOccupied(deps, attempt.printer)
    const detail = `Printed ${remoteName}: the job completed before the printer was first looked at.`
    return { outcome: 'confirmed', detail, run: 'completed' }
  }
  note(deps, attempt, 'confirm', false, describe(status))
  if (sight === 'preparing') {
    attempt.started = true
    const detail = `Stored as ${remoteName} and ${asked}; the printer is preparing it (${describe(status)}). The dispatch is settled once it prints or fails.`
    return { outcome: 'preparing', detail }
  }
  const ended = sight === 'ended' ? ` (the job ${status.job?.ended} at once)` : ''
  const detail = `Stored as ${remoteName} and ${asked}, but the printer is ${describe(status)}, not printing it${ended}.`
  return { outcome: 'not_confirmed', detail }
}

/** Writes the dispatch record and logs it. */
async function record(deps: DispatchDeps, attempt: Attempt, ending: Ending): Promise<SendResult> {
  const { principal, printer, file } = attempt
  const finishedAt = deps.clock.now().toISOString()
  const filament = file.filament.mm !== null || file.filament.g !== null
  const row: Selectable<DispatchesTable> = {
    id: crypto.randomUUID(),
    printer_id: printer.id,
    printer_name: printer.name,
    file_id: file.id,
    file_name: file.original_name,
    user_id: principal.userId,
    start_requested: attempt.startRequested ? 1 : 0,
    outcome: ending.outcome,
    uploaded: attempt.uploaded ? 1 : 0,
    started: attempt.started ? 1 : 0,
    confirmed: attempt.confirmed ? 1 : 0,
    remote_name: attempt.remoteName,
    detail: ending.detail,
    steps: JSON.stringify(attempt.steps),
    created_at: attempt.createdAt,
    finished_at: finishedAt,
    job_id: principal.jobId ?? null,
    ...(ending.run
      ? runStarted(ending.run, finishedAt)
      : { run_state: null, run_started_at: null, run_ended_at: null }),
    run_reason: null,
    filament_mm: file.filament.mm,
    filament_g: file.filament.g,
    filament_source: filament ? 'file' : null,
    verdict: null,
    note: null,
    photo_sha256: null,
    photo_type: null,
    photo_size: null,
  }
  await deps.database.db.insertInto('dispatches').values(row).execute()
  await publishDispatch(deps, row)
  deps.logger.info('printer dispatch', {
    dispatch_id: row.id,
    printer_id: printer.id,
    file_id: file.id,
    user_id: principal.userId,
    outcome: ending.outcome,
  })
  const holder = await deps.database.db
    .selectFrom('files')
    .select('model_id')
    .where('id', '=', file.id)
    .executeTakeFirst()
  return { dispatch: toDispatchRecord(row, holder?.model_id ?? null) }
}

/** Which dispatches a list shows: one printer's, the sends of one model's files, or all; newest first. */
export interface DispatchFilter {
  printerId?: string | undefined
  modelId?: string | undefined
  limit?: number | undefined
}

export async function listDispatches(
  deps: Pick<PrintersDeps, 'database'>,
  { printerId, modelId, limit = 100 }: DispatchFilter = {},
): Promise<DispatchRecord[]> {
  const { db } = deps.database
  if (printerId) await getPrinterRow(deps, printerId)
  if (modelId && !(await db.selectFrom('models').select('id').where('id', '=', modelId).executeTakeFirst()))
    throw new VaultError('not_found', `No model has the id ${modelId}.`)
  const rows = await db
    .selectFrom('dispatches')
    .leftJoin('files', 'files.id', 'dispatches.file_id')
    .selectAll('dispatches')
    .select('files.model_id')
    .$if(printerId !== undefined, (qb) => qb.where('dispatches.printer_id', '=', printerId ?? ''))
    .$if(modelId !== undefined, (qb) => qb.where('files.model_id', '=', modelId ?? ''))
    .orderBy('dispatches.created_at', 'desc')
    .orderBy('dispatches.id')
    .limit(limit)
    .execute()
  return rows.map(({ model_id, ...row }) => toDispatchRecord(row, model_id))
}
