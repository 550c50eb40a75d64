import type { Selectable } from 'kysely'
import type { DispatchesTable, PrintersTable } from '../db/schema.js'
import { type EventInput, publishEvent, publishEventsWhen } from '../events/publish-event.js'
import type { DispatchOutcome } from './dispatch-record.js'
import type { PrintersDeps } from './printers-deps.js'
import type { ObservedStatus } from './status-cache.js'

type PublishDeps = Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'events'>
type PrinterFacts = Pick<
  Selectable<PrintersTable>,
  'id' | 'name' | 'observed_state' | 'require_bed_clear' | 'bed_occupied_since'
>
type DispatchFacts = Pick<
  Selectable<DispatchesTable>,
  'id' | 'printer_id' | 'printer_name' | 'file_id' | 'file_name' | 'user_id' | 'outcome' | 'detail'
>

/**
 * Publishes a printer's state when it differs from the one last published (`printers.observed_state`):
 * `printer.state_changed`, with `printer.error` on entering the error state and
 * `printer.bed_needs_clearing` on becoming idle with a bed to confirm clear. The update of the row
 * names the states it replaces, so of several processes seeing one change only one publishes it.
 * A stale picture is not an observation and publishes nothing.
 */
export async function publishStateChange(deps: PublishDeps, row: PrinterFacts, status: ObservedStatus): Promise<void> {
  if (status.stale || row.observed_state === status.state) return
  await publishEventsWhen(deps, async (trx) => {
    const changed = await trx
      .updateTable('printers')
      .set({ observed_state: status.state })
      .where('id', '=', row.id)
      .where((eb) => eb.or([eb('observed_state', 'is', null), eb('observed_state', '!=', status.state)]))
      .executeTakeFirst()
    if (Number(changed.numUpdatedRows) === 0) return []
    const subject = `printer:${row.id}`
    const printer = { printer_id: row.id, printer_name: row.name }
    const events: EventInput[] = [
      {
        type: 'printer.state_changed',
        subject,
        data: {
          ...printer,
          state: status.state,
          previous_state: row.observed_state,
          reason: status.reason ?? null,
          ready: status.ready,
        },
      },
    ]
    if (status.state === 'error')
      events.push({ type: 'printer.error', subject, data: { ...printer, reason: status.reason ?? null } })
    if (status.state === 'idle' && row.require_bed_clear === 1 && row.bed_occupied_since !== null)
      events.push({
        type: 'printer.bed_needs_clearing',
        subject,
        data: { ...printer, bed_occupied_since: row.bed_occupied_since },
      })
    return events
  })
}

/** Which event a dispatch's outcome is: seen printing, stored and not yet seen printing, or not printing. */
const dispatchEventTypes: Record<DispatchOutcome, EventInput['type']> = {
  confirmed: 'dispatch.started',
  preparing: 'dispatch.sent',
  uploaded: 'dispatch.sent',
  refused: 'dispatch.failed',
  upload_failed: 'dispatch.failed',
  not_ready_after_upload: 'dispatch.failed',
  start_refused: 'dispatch.failed',
  not_confirmed: 'dispatch.failed',
}

/** Publishes what a send came to (on its record, and again when a `preparing` one settles). */
export const publishDispatch = (deps: PublishDeps, dispatch: DispatchFacts): Promise<void> =>
  publishEvent(deps, {
    type: dispatchEventTypes[dispatch.outcome as DispatchOutcome],
    subject: `dispatch:${dispatch.id}`,
    data: {
      dispatch_id: dispatch.id,
      printer_id: dispatch.printer_id,
      printer_name: dispatch.printer_name,
      file_id: dispatch.file_id,
      file_name: dispatch.file_name,
      user_id: dispatch.user_id,
      outcome: dispatch.outcome,
      detail: dispatch.detail,
    },
  })
