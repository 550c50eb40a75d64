import type { Selectable } from 'kysely'
import type { Principal } from '../auth/sessions.js'
import type { Deps } from '../deps.js'
import type { DispatchesTable } from '../db/schema.js'
import { VaultError, notFound, unprocessable } from '../errors.js'
import { connectPrinter, getPrinterRow, printerStatus } from './printers.js'
import { PrinterError, type PrinterStatus } from './provider.js'

/**
 * What became of one send. `refused`: the printer was not ready, nothing was sent.
 * `upload_failed`: the file did not arrive. `uploaded`: stored, not started (as asked, or
 * because the printer stopped being ready). `start_refused`: stored, the printer refused to
 * start. `not_confirmed`: stored and the start was accepted, but the printer never showed
 * that it prints. `confirmed`: printing, seen with our own eyes.
 */
export type DispatchOutcome =
  | 'refused'
  | 'upload_failed'
  | 'uploaded'
  | 'not_ready_after_upload'
  | 'start_refused'
  | 'not_confirmed'
  | 'confirmed'

export interface DispatchStep {
  step: 'check' | 'upload' | 'recheck' | 'start' | 'confirm'
  ok: boolean
  detail: string
  at: string
}

/** A dispatch as the API shows it: the row, with booleans, its outcome and its steps decoded. */
export type DispatchRecord = Omit<
  Selectable<DispatchesTable>,
  'outcome' | 'start_requested' | 'uploaded' | 'started' | 'confirmed' | 'steps'
> & {
  outcome: DispatchOutcome
  start_requested: boolean
  uploaded: boolean
  started: boolean
  confirmed: boolean
  steps: DispatchStep[]
}

export const toDispatchRecord = (row: Selectable<DispatchesTable>): DispatchRecord => ({
  ...row,
  outcome: row.outcome as DispatchOutcome,
  start_requested: row.start_requested === 1,
  uploaded: row.uploaded === 1,
  started: row.started === 1,
  confirmed: row.confirmed === 1,
  steps: JSON.parse(row.steps) as DispatchStep[],
})

/** A file name any of the providers stores as it is. */
export function remoteFileName(name: string): string {
  const base =
    name
      .replace(/^.*[\\/]/, '')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[._]+/, '') || 'vault-file'
  return /\.(gcode|gco|g)$/i.test(base) ? base : `${base}.gcode`
}

const describe = (status: PrinterStatus) => `${status.state}${status.reason ? ` (${status.reason})` : ''}`

export interface SendResult {
  dispatch: DispatchRecord
  /** 201 for what was asked and done; 409 or 502 when the printer let us down midway. */
  httpStatus: 201 | 409 | 502
}

/**
 * Sends a stored G-code file to a printer and, when asked, starts it, following the rule for
 * small farms: never queue work onto an unconfirmed printer. A fresh status must say `idle`
 * (else 409, nothing sent); the file is uploaded without auto-start; the status is checked
 * again; the start is asked for; and the printer must then show that it prints, because
 * providers can answer success without starting. Every attempt is recorded.
 */
export async function sendToPrinter(
  deps: Deps,
  principal: Principal,
  printerId: string,
  input: { file_id: string; start: boolean },
): Promise<SendResult> {
  const { db } = deps.database
  const printer = await getPrinterRow(deps, printerId)
  const file = await db
    .selectFrom('files')
    .select(['id', 'original_name', 'format', 'sha256', 'size'])
    .where('id', '=', input.file_id)
    .executeTakeFirst()
  if (!file)
    throw unprocessable('No stored file has this id.', [
      { path: 'body.file_id', message: 'no stored file has this id' },
    ])
  if (file.format !== 'gcode') {
    throw new VaultError(
      422,
      'not_gcode',
      'Unprocessable Content',
      `${file.original_name} is a ${file.format} file; only G-code can be sent to a printer. Slice it first.`,
      [{ path: 'body.file_id', message: `is a ${file.format} file, not G-code` }],
    )
  }

  const steps: DispatchStep[] = []
  const createdAt = deps.clock.now().toISOString()
  const step = (name: DispatchStep['step'], ok: boolean, detail: string) =>
    steps.push({ step: name, ok, detail, at: deps.clock.now().toISOString() })
  const facts = { uploaded: false, started: false, confirmed: false, remote_name: null as string | null }
  const finish = async (
    outcome: DispatchOutcome,
    detail: string,
    httpStatus: SendResult['httpStatus'],
  ): Promise<SendResult> => {
    const row: Selectable<DispatchesTable> = {
      id: crypto.randomUUID(),
      printer_id: printer.id,
      printer_name: printer.name,
      file_id: file.id,
      file_name: file.original_name,
      user_id: principal.userId,
      start_requested: input.start ? 1 : 0,
      outcome,
      uploaded: facts.uploaded ? 1 : 0,
      started: facts.started ? 1 : 0,
      confirmed: facts.confirmed ? 1 : 0,
      remote_name: facts.remote_name,
      detail,
      steps: JSON.stringify(steps),
      created_at: createdAt,
      finished_at: deps.clock.now().toISOString(),
    }
    await db.insertInto('dispatches').values(row).execute()
    deps.logger.info('printer dispatch', {
      dispatch_id: row.id,
      printer_id: printer.id,
      file_id: file.id,
      user_id: principal.userId,
      outcome,
    })
    return { dispatch: toDispatchRecord(row), httpStatus }
  }

  const before = await printerStatus(deps, printer, { fresh: true })
  step('check', before.ready, describe(before))
  if (!before.ready) {
    const { dispatch } = await finish('refused', `The printer is ${describe(before)}; nothing was sent.`, 409)
    throw new VaultError(
      409,
      'printer_not_ready',
      'Conflict',
      `${printer.name} is not ready: it is ${describe(before)}. Nothing was sent (dispatch ${dispatch.id}).`,
      [
        { path: 'printer.state', message: before.state },
        ...(before.reason ? [{ path: 'printer.reason', message: before.reason }] : []),
      ],
    )
  }

  const provider = await connectPrinter(deps, printer)
  const blob = await deps.blobs.get(file.sha256)
  if (!blob) throw notFound(`The content of ${file.original_name} is missing from storage.`)
  try {
    const uploaded = await provider.upload({
      name: remoteFileName(file.original_name),
      size: blob.size,
      stream: blob.stream,
    })
    facts.uploaded = true
    facts.remote_name = uploaded.remote_name
    facts.started = uploaded.started
    step(
      'upload',
      true,
      `stored as ${uploaded.remote_name}${uploaded.started ? '; the printer started it on its own' : ''}`,
    )
  } catch (error) {
    await blob.stream.cancel().catch(() => {})
    if (!(error instanceof PrinterError)) throw error
    step('upload', false, error.message)
    return finish('upload_failed', `The upload failed: ${error.message}`, 502)
  }
  const remote = facts.remote_name!
  if (!input.start) return finish('uploaded', `Stored on the printer as ${remote}; not started, as asked.`, 201)

  if (!facts.started) {
    const again = await printerStatus(deps, printer, { fresh: true })
    step('recheck', again.ready, describe(again))
    if (!again.ready)
      return finish(
        'not_ready_after_upload',
        `Stored as ${remote}, but the printer became ${describe(again)}; not started.`,
        409,
      )
    try {
      await provider.start(remote)
      facts.started = true
      step('start', true, 'the printer accepted the start command')
    } catch (error) {
      if (!(error instanceof PrinterError)) throw error
      step('start', false, error.message)
      return finish('start_refused', `Stored as ${remote}, but the printer refused to start it: ${error.message}`, 502)
    }
  }

  const deadline = Date.now() + deps.printers.confirmMs
  let seen = await printerStatus(deps, printer, { fresh: true })
  while (!printsFile(seen, remote) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    seen = await printerStatus(deps, printer, { fresh: true })
  }
  if (!printsFile(seen, remote)) {
    step('confirm', false, describe(seen))
    return finish(
      'not_confirmed',
      `Stored as ${remote} and the start was accepted, but the printer is ${describe(seen)}, not printing it.`,
      502,
    )
  }
  facts.confirmed = true
  step('confirm', true, describe(seen))
  return finish('confirmed', `Printing ${remote}.`, 201)
}

/** Printing (or paused, or busy heating) this very file; an unnamed job counts only while printing. */
function printsFile(status: PrinterStatus, remote: string): boolean {
  if (!['printing', 'paused', 'busy'].includes(status.state)) return false
  const name = status.job?.file_name?.replace(/^.*\//, '') ?? null
  return name === null ? status.state === 'printing' : name === remote
}

export async function listDispatches(deps: Deps, printerId?: string, limit = 100): Promise<DispatchRecord[]> {
  let query = deps.database.db
    .selectFrom('dispatches')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
  if (printerId) {
    await getPrinterRow(deps, printerId)
    query = query.where('printer_id', '=', printerId)
  }
  return (await query.execute()).map(toDispatchRecord)
}
