import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { getPrinterRow, type PrinterRow } from '../printers/printers.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import type { PrinterFacts } from './compatibility.js'

/** A printer as the queue sees it: its groups, the filament loaded, and whether it is held. */
export interface FarmPrinter {
  printer_id: string
  name: string
  groups: string[]
  loaded_filaments: string[]
  held: boolean
  held_reason: string | null
  held_since: string | null
}

const list = (json: string) => JSON.parse(json) as string[]

export const groupsOf = (row: Pick<PrinterRow, 'farm_groups'>) => list(row.farm_groups)

export const toFarmPrinter = (row: PrinterRow): FarmPrinter => ({
  printer_id: row.id,
  name: row.name,
  groups: groupsOf(row),
  loaded_filaments: list(row.loaded_filaments),
  held: row.held_reason !== null,
  held_reason: row.held_reason,
  held_since: row.held_since,
})

/** Sets a printer's group tags and the filament types loaded in it (stored upper case, as slicers name them). */
export async function setFarmPrinter(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  id: string,
  changes: { groups?: string[] | undefined; loaded_filaments?: string[] | undefined },
): Promise<PrinterRow> {
  await getPrinterRow(deps, id)
  const distinct = (values: string[]) => [...new Set(values.map((value) => value.trim()).filter(Boolean))]
  await deps.database.db
    .updateTable('printers')
    .set({
      updated_at: deps.clock.now().toISOString(),
      ...(changes.groups ? { farm_groups: JSON.stringify(distinct(changes.groups)) } : {}),
      ...(changes.loaded_filaments
        ? { loaded_filaments: JSON.stringify(distinct(changes.loaded_filaments.map((type) => type.toUpperCase()))) }
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
