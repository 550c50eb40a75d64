import type { Kysely, Selectable } from 'kysely'
import type { BedClearingsTable, Database } from '../db/schema.js'
import { unprocessable } from '../errors.js'
import { getPrinterRow, type PrinterRow } from '../printers/printers.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import { findProviderKind } from '../printers/provider-kind.js'
import type { PrinterFacts } from './compatibility.js'

/** How a printer's bed becomes clear after a job: a person confirms it, or the vault runs a script. */
export type BedClearing = { by: 'person' } | { by: 'script'; script: string; below_c: number; timeout_s: number }

/** A clearing run as the farm shows it: what it waits for, the bed's last temperature, and why it failed. */
export interface BedClearingRun {
  state: Selectable<BedClearingsTable>['state']
  bed_c: number | null
  below_c: number
  detail: string | null
  started_at: string
}

/** A printer as the queue sees it: its groups, the filament loaded, whether it is held, and how its bed is cleared. */
export interface FarmPrinter {
  printer_id: string
  name: string
  groups: string[]
  loaded_filaments: string[]
  held: boolean
  held_reason: string | null
  held_since: string | null
  bed_clearing: BedClearing
  /** The last clearing run by script, if any. */
  clearing: BedClearingRun | null
}

const list = (json: string) => JSON.parse(json) as string[]

export const groupsOf = (row: Pick<PrinterRow, 'farm_groups'>) => list(row.farm_groups)

export const bedClearingOf = (row: PrinterRow): BedClearing =>
  row.bed_clear_by === 'script'
    ? {
        by: 'script',
        script: row.bed_clear_script ?? '',
        below_c: row.bed_clear_below_c ?? 0,
        timeout_s: row.bed_clear_timeout_s ?? 0,
      }
    : { by: 'person' }

export const toFarmPrinter = (row: PrinterRow, run?: Selectable<BedClearingsTable>): FarmPrinter => ({
  printer_id: row.id,
  name: row.name,
  groups: groupsOf(row),
  loaded_filaments: list(row.loaded_filaments),
  held: row.held_reason !== null,
  held_reason: row.held_reason,
  held_since: row.held_since,
  bed_clearing: bedClearingOf(row),
  clearing: run
    ? { state: run.state, bed_c: run.bed_c, below_c: run.below_c, detail: run.detail, started_at: run.created_at }
    : null,
})

/** The newest clearing run of each printer that has one (or of the one printer named). */
export async function lastClearings(
  db: Kysely<Database>,
  printerId?: string,
): Promise<Map<string, Selectable<BedClearingsTable>>> {
  // Only each printer's newest run is read, however many earlier ones the table keeps.
  const rows = await db
    .selectFrom('bed_clearings as run')
    .selectAll('run')
    .$if(printerId !== undefined, (qb) => qb.where('run.printer_id', '=', printerId ?? ''))
    .where('run.id', '=', (eb) =>
      eb
        .selectFrom('bed_clearings as newer')
        .select('newer.id')
        .whereRef('newer.printer_id', '=', 'run.printer_id')
        .orderBy('newer.created_at', 'desc')
        .orderBy('newer.id', 'desc')
        .limit(1),
    )
    .execute()
  return new Map(rows.map((run) => [run.printer_id, run]))
}

/** A printer whose provider cannot run G-code cannot clear its bed by script: a 422 saying why. */
function checkBedClearing(deps: Pick<PrintersDeps, 'printers'>, row: PrinterRow, clearing: BedClearing): void {
  if (clearing.by !== 'script') return
  const kind = findProviderKind(deps.printers.providers, row.provider)
  if (kind?.scripts.runs) return
  const why = kind ? kind.scripts.detail : `no provider ${row.provider} is offered here`
  throw unprocessable(`${row.name} cannot clear its bed by script: ${why}`, [
    { path: 'body.bed_clearing.by', message: `${kind?.label ?? row.provider} runs no G-code script: ${why}` },
  ])
}

/**
 * Sets a printer's group tags, the filament types loaded in it (stored upper case, as slicers
 * name them) and how its bed is cleared.
 */
export async function setFarmPrinter(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'printers'>,
  id: string,
  changes: { groups?: string[] | undefined; loaded_filaments?: string[] | undefined; bed_clearing?: BedClearing },
): Promise<PrinterRow> {
  const row = await getPrinterRow(deps, id)
  const clearing = changes.bed_clearing
  if (clearing) checkBedClearing(deps, row, clearing)
  const script = clearing?.by === 'script' ? clearing.script.replace(/\r\n?/g, '\n') : null
  const distinct = (values: string[]) => [...new Set(values.map((value) => value.trim()).filter(Boolean))]
  await deps.database.db
    .updateTable('printers')
    .set({
      updated_at: deps.clock.now().toISOString(),
      ...(changes.groups ? { farm_groups: JSON.stringify(distinct(changes.groups)) } : {}),
      ...(changes.loaded_filaments
        ? { loaded_filaments: JSON.stringify(distinct(changes.loaded_filaments.map((type) => type.toUpperCase()))) }
        : {}),
      ...(clearing
        ? clearing.by === 'script'
          ? {
              bed_clear_by: 'script' as const,
              bed_clear_script: script,
              bed_clear_below_c: clearing.below_c,
              bed_clear_timeout_s: clearing.timeout_s,
            }
          : { bed_clear_by: 'person' as const }
        : {}),
    })
    .where('id', '=', id)
    .execute()
  return getPrinterRow(deps, id)
}

/** Holds a printer back from the queue: a job failed on it and a person should look at it first. */
export async function holdPrinter(db: Kysely<Database>, id: string, reason: string, now: string): Promise<void> {
  await db.updateTable('printers').set({ held_reason: reason, held_since: now }).where('id', '=', id).execute()
}

/** A person looked at the printer: the queue feeds it again. */
export async function releasePrinter(deps: Pick<PrintersDeps, 'database'>, id: string): Promise<PrinterRow> {
  await getPrinterRow(deps, id)
  await deps.database.db
    .updateTable('printers')
    .set({ held_reason: null, held_since: null })
    .where('id', '=', id)
    .execute()
  return getPrinterRow(deps, id)
}

/**
 * Takes the lease to feed one printer: one process at a time reads its status, settles its job
 * and sends it the next, across replicas. A lease whose holder stopped lapses at `until`.
 */
export async function leasePrinter(
  db: Kysely<Database>,
  lease: { id: string; owner: string; now: string; until: string },
): Promise<boolean> {
  const result = await db
    .updateTable('printers')
    .set({ lease_owner: lease.owner, lease_until: lease.until })
    .where('id', '=', lease.id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', lease.now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function unleasePrinter(db: Kysely<Database>, id: string, owner: string): Promise<void> {
  await db
    .updateTable('printers')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute()
}

/** What the compatibility rules read of a printer: its profile's figures and the filament loaded. */
export async function printerFactsOf(db: Kysely<Database>, row: PrinterRow): Promise<PrinterFacts> {
  const profile = row.printer_profile_id
    ? await db.selectFrom('printer_profiles').selectAll().where('id', '=', row.printer_profile_id).executeTakeFirst()
    : undefined
  const settings = profile ? (JSON.parse(profile.settings) as Record<string, string>) : {}
  return {
    name: row.name,
    printer_model: settings.printer_model?.trim() || null,
    nozzle_diameter_mm: profile?.nozzle_diameter_mm ?? null,
    bed_x_mm: profile?.bed_x_mm ?? null,
    bed_y_mm: profile?.bed_y_mm ?? null,
    max_height_mm: profile?.max_height_mm ?? null,
    loaded_filaments: list(row.loaded_filaments),
  }
}
