import type { Selectable } from 'kysely'
import type { PrintersTable } from '../db/schema.js'
import type { PrintersDeps } from './printers-deps.js'
import type { PrinterState } from './provider.js'
import type { ObservedStatus } from './status-cache.js'

/**
 * Bed clearance. The vault cannot see the bed, and a job sent onto a finished print crashes the
 * nozzle into it; so a printer that asks for it (`require_bed_clear`) is not ready after a job
 * until someone confirms the bed is clear. A job counts from the moment the vault sees it:
 * every status read that says printing or paused (the vault's own sends always are seen, by
 * their confirm step), whoever started it.
 */
/**
 * The advice that ends the reason of a printer whose last job ended: the vault cannot see the bed.
 * Bed clearance (see `bed-clearance.ts`) replaces it when the printer waits for a confirmation.
 */
export const clearBedAdvice = 'make sure the bed is clear'

type BedRow = Pick<
  Selectable<PrintersTable>,
  'id' | 'require_bed_clear' | 'bed_occupied_since' | 'bed_clear_by' | 'bed_cleared_at'
>

/** The states in which a job is on the bed. */
export const jobOnBed = (state: PrinterState): boolean => state === 'printing' || state === 'paused'

/**
 * Records that a job was seen on the printer, once, until the bed is confirmed clear. Only a status
 * asked after the last confirmation counts: one asked before it (a slow poll, another process's
 * cached status) shows the print that was taken off.
 */
export async function noteJobSeen<Row extends BedRow>(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  row: Row,
  status: ObservedStatus,
): Promise<Row> {
  if (row.bed_occupied_since !== null || !jobOnBed(status.state)) return row
  return markBedOccupied(deps, row, { askedAt: status.asked_at })
}

/**
 * Records that a job ran on the printer (seen printing, or seen done with a run the vault started);
 * with `askedAt`, only when the bed was last confirmed clear before that status was asked.
 */
export async function markBedOccupied<Row extends BedRow>(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  row: Row,
  seen: { askedAt?: string } = {},
): Promise<Row> {
  const since = deps.clock.now().toISOString()
  const { askedAt } = seen
  const { db } = deps.database
  const marked = await db
    .updateTable('printers')
    .set({ bed_occupied_since: since })
    .where('id', '=', row.id)
    .where('bed_occupied_since', 'is', null)
    .$if(askedAt !== undefined, (update) =>
      update.where((eb) => eb.or([eb('bed_cleared_at', 'is', null), eb('bed_cleared_at', '<', askedAt ?? '')])),
    )
    .executeTakeFirst()
  if (Number(marked.numUpdatedRows) === 1) return { ...row, bed_occupied_since: since }
  const current = await db
    .selectFrom('printers')
    .select('bed_occupied_since')
    .where('id', '=', row.id)
    .executeTakeFirst()
  return { ...row, bed_occupied_since: current?.bed_occupied_since ?? null }
}

const waitingAdvice = 'confirm the bed is clear to send the next job'
const scriptAdvice = 'the vault clears the bed by script once it has cooled'
const clearedNote = 'the bed has been cleared since'

/**
 * An idle printer whose bed waits for a confirmation, or for its clearing script, is not ready,
 * and its reason says why; one whose bed was cleared since its job ended says so instead of the
 * host's advice to clear it.
 */
export function withBedClearance(row: BedRow, status: ObservedStatus): ObservedStatus {
  const byScript = row.bed_clear_by === 'script'
  if (status.state !== 'idle') return status
  // Cleared since the job ended (by a person or the script): the host's advice is already followed.
  if (row.bed_occupied_since === null && row.bed_cleared_at !== null && status.reason?.includes(clearBedAdvice))
    return { ...status, reason: status.reason.replace(clearBedAdvice, clearedNote) }
  if ((row.require_bed_clear !== 1 && !byScript) || row.bed_occupied_since === null) return status
  if (byScript) return { ...status, ready: false, reason: `a job ran since the bed was last cleared; ${scriptAdvice}` }
  const reason = status.reason?.includes(clearBedAdvice)
    ? status.reason.replace(clearBedAdvice, waitingAdvice)
    : `a job ran since the bed was last confirmed clear; ${waitingAdvice}`
  return { ...status, ready: false, reason }
}
