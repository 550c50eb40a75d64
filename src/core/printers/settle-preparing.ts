import type { DispatchStep } from './dispatch-record.js'
import { sightOf } from './job-sight.js'
import { runStarted } from './print-runs.js'
import { publishDispatch } from './printer-events.js'
import type { PrintersDeps } from './printers-deps.js'
import type { PrinterStatus } from './provider.js'

/**
 * Settles this printer's `preparing` dispatches from a status just read: `confirmed` once the
 * printer prints the file (or is done with it), `not_confirmed` once it stops preparing without
 * printing. Offline, unknown or stale pictures settle nothing. The update names the outcome it
 * replaces, so two processes reading the same status settle a dispatch once.
 */
export async function settlePreparing(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'events'>,
  printerId: string,
  status: PrinterStatus,
): Promise<void> {
  if (status.stale || status.state === 'offline' || status.state === 'unknown') return
  const preparing = await deps.database.db
    .selectFrom('dispatches')
    .selectAll()
    .where('printer_id', '=', printerId)
    .where('outcome', '=', 'preparing')
    .execute()
  for (const dispatch of preparing) {
    const remote = dispatch.remote_name ?? ''
    // Seen preparing this file after the start, so any run of it the printer now shows is ours.
    const sight = sightOf(status, remote, null)
    if (sight === 'preparing') continue
    const confirmed = sight === 'printing' || sight === 'completed'
    const state = `${status.state}${status.reason ? ` (${status.reason})` : ''}`
    const at = deps.clock.now().toISOString()
    const steps: DispatchStep[] = [
      ...(JSON.parse(dispatch.steps) as DispatchStep[]),
      { step: 'confirm', ok: confirmed, detail: state, at },
    ]
    const detail = confirmed
      ? sight === 'printing'
        ? `Printing ${remote}.`
        : `Printed ${remote}.`
      : `The printer prepared ${remote} but did not print it: it is ${state}.`
    const outcome = confirmed ? 'confirmed' : 'not_confirmed'
    const settled = await deps.database.db
      .updateTable('dispatches')
      .set({
        outcome,
        confirmed: confirmed ? 1 : 0,
        detail,
        steps: JSON.stringify(steps),
        finished_at: at,
        ...(confirmed ? runStarted(sight === 'printing' ? 'printing' : 'completed', at) : {}),
      })
      .where('id', '=', dispatch.id)
      .where('outcome', '=', 'preparing')
      .executeTakeFirst()
    if (Number(settled.numUpdatedRows) === 0) continue
    await publishDispatch(deps, { ...dispatch, outcome, detail })
    deps.logger.info('printer dispatch settled', {
      dispatch_id: dispatch.id,
      printer_id: printerId,
      outcome: confirmed ? 'confirmed' : 'not_confirmed',
    })
  }
}
