import type { Selectable } from 'kysely'
import type { FilamentProfilesTable, PrinterProfilesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import type { PrintersDeps } from '../printers/printers-deps.js'
import { providerForHostType } from '../printers/provider-kind.js'
import {
  type FilamentPreset,
  PresetFormatError,
  type PrinterPreset,
  readCuraMaterial,
  readPrusaSlicerBundle,
} from './preset-import.js'
import { filamentLimits, limitViolations, printerLimits } from './preset-limits.js'

/**
 * Filament and printer profiles. Names are unique per kind; an import replaces the profile
 * of the same name, so importing a bundle again updates it instead of duplicating it.
 */
export type PresetKind = 'filament' | 'printer'
const tables = { filament: 'filament_profiles', printer: 'printer_profiles' } as const
const labels = { filament: 'filament profile', printer: 'printer profile' } as const

interface ProfileTables {
  filament: FilamentProfilesTable
  printer: PrinterProfilesTable
}
interface Presets {
  filament: FilamentPreset
  printer: PrinterPreset
}
/** The profile fields a user edits: the preset without its settings. */
type Fields<K extends PresetKind> = Omit<Presets[K], 'settings'>

/** A stored profile, its settings parsed. */
export type PresetRecord<K extends PresetKind> = Omit<Selectable<ProfileTables[K]>, 'settings'> & {
  settings: Record<string, string>
}

/**
 * Both tables queried by the union of their names: Kysely then checks every column and value
 * against the columns the two share. Only the row's kind is lost, and `toRecord` restores it.
 */
type ProfileRow = Selectable<ProfileTables[PresetKind]>
const tableOf = (kind: PresetKind) => tables[kind]

const toRecord = <K extends PresetKind>(row: ProfileRow): PresetRecord<K> =>
  ({ ...row, settings: JSON.parse(row.settings) as Record<string, string> }) as PresetRecord<K>

export async function listPresets<K extends PresetKind>(
  deps: Pick<PrintersDeps, 'database'>,
  kind: K,
  search?: string,
): Promise<PresetRecord<K>[]> {
  let query = deps.database.db.selectFrom(tableOf(kind)).selectAll().orderBy('name').limit(1000)
  // Case-insensitive on both databases: PostgreSQL's LIKE, unlike SQLite's, tells case apart.
  const pattern = `%${search?.replace(/[%_]/g, '').toLowerCase()}%`
  if (search) query = query.where((eb) => eb(eb.fn<string>('lower', ['name']), 'like', pattern))
  return (await query.execute()).map((row) => toRecord<K>(row))
}

export async function getPreset<K extends PresetKind>(
  deps: Pick<PrintersDeps, 'database'>,
  kind: K,
  id: string,
): Promise<PresetRecord<K>> {
  const row = await deps.database.db.selectFrom(tableOf(kind)).selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No ${labels[kind]} has the id ${id}.`)
  return toRecord<K>(row)
}

async function nameOwner(deps: Pick<PrintersDeps, 'database'>, kind: PresetKind, name: string): Promise<string | null> {
  const row = await deps.database.db.selectFrom(tableOf(kind)).select('id').where('name', '=', name).executeTakeFirst()
  return row ? row.id : null
}

export async function createPreset<K extends PresetKind>(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  kind: K,
  fields: Fields<K>,
  source = 'manual',
  settings: Record<string, string> = {},
): Promise<PresetRecord<K>> {
  if (await nameOwner(deps, kind, fields.name))
    throw new VaultError('name_taken', `A ${labels[kind]} named ${JSON.stringify(fields.name)} exists already.`)
  const now = deps.clock.now().toISOString()
  const id = crypto.randomUUID()
  await deps.database.db
    .insertInto(tableOf(kind))
    .values({ ...fields, id, source, settings: JSON.stringify(settings), created_at: now, updated_at: now })
    .execute()
  return getPreset(deps, kind, id)
}

export async function updatePreset<K extends PresetKind>(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  kind: K,
  id: string,
  fields: Partial<Fields<K>>,
): Promise<PresetRecord<K>> {
  await getPreset(deps, kind, id)
  if (fields.name !== undefined) {
    const owner = await nameOwner(deps, kind, fields.name)
    if (owner && owner !== id)
      throw new VaultError('name_taken', `A ${labels[kind]} named ${JSON.stringify(fields.name)} exists already.`)
  }
  const changes = { ...fields, updated_at: deps.clock.now().toISOString() }
  await deps.database.db.updateTable(tableOf(kind)).set(changes).where('id', '=', id).execute()
  return getPreset(deps, kind, id)
}

export async function deletePreset(deps: Pick<PrintersDeps, 'database'>, kind: PresetKind, id: string): Promise<void> {
  await getPreset(deps, kind, id)
  await deps.database.db.deleteFrom(tableOf(kind)).where('id', '=', id).execute()
}

/** Stores imported presets, replacing those of the same name. */
async function savePresets(
  deps: Pick<PrintersDeps, 'database' | 'clock'>,
  kind: PresetKind,
  presets: (FilamentPreset | PrinterPreset)[],
  source: string,
) {
  const items: { id: string; name: string; created: boolean }[] = []
  const now = deps.clock.now().toISOString()
  await deps.database.db.transaction().execute(async (trx) => {
    for (const { settings, ...fields } of presets) {
      const existing = await trx
        .selectFrom(tableOf(kind))
        .select('id')
        .where('name', '=', fields.name)
        .executeTakeFirst()
      const values = { ...fields, source, settings: JSON.stringify(settings), updated_at: now }
      if (existing) {
        await trx.updateTable(tableOf(kind)).set(values).where('id', '=', existing.id).execute()
        items.push({ id: existing.id, name: fields.name, created: false })
      } else {
        const id = crypto.randomUUID()
        await trx
          .insertInto(tableOf(kind))
          .values({ ...values, id, created_at: now })
          .execute()
        items.push({ id, name: fields.name, created: true })
      }
    }
  })
  return { created: items.filter((i) => i.created).length, updated: items.filter((i) => !i.created).length, items }
}

/** The largest preset file an import takes. */
export const maxImportBytes = 32 * 1024 * 1024
const tooLarge = () => new VaultError('payload_too_large', 'A preset file may be at most 32 MiB.')
const unsupported = (detail: string) => new VaultError('unsupported_preset_file', detail)

/**
 * Imports the profiles of one kind from an uploaded preset file: a Cura material file or a
 * PrusaSlicer bundle. `declaredBytes` (the request's length) is checked before the body is
 * read. Throws 413 above 32 MiB and 422 `unsupported_preset_file` for a file that is neither
 * format, holds no profile of this kind, or is a Cura material imported as a printer. A profile
 * out of the limits of `preset-limits.ts` is not imported but reported under `skipped`; a file
 * with none within them throws 422 `preset_out_of_range`.
 */
export async function importPresetFile(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'printers'>,
  kind: PresetKind,
  file: { declaredBytes: number; text: () => Promise<string> },
) {
  if (file.declaredBytes > maxImportBytes) throw tooLarge()
  const text = await file.text()
  if (text.length > maxImportBytes) throw tooLarge()
  const cura = /<fdmmaterial[\s>]/.test(text)
  if (cura && kind === 'printer')
    throw unsupported('A Cura material file holds a filament, not a printer; import it as a filament profile.')
  let presets: (FilamentPreset | PrinterPreset)[]
  try {
    presets = cura
      ? [readCuraMaterial(text)]
      : readPrusaSlicerBundle(text, (hostType) => providerForHostType(deps.printers.providers, hostType))[
          kind === 'filament' ? 'filaments' : 'printers'
        ]
  } catch (error) {
    if (error instanceof PresetFormatError) throw unsupported(error.message)
    throw error
  }
  if (presets.length === 0) throw unsupported(`The file holds no ${kind} profile.`)
  const limits = kind === 'filament' ? filamentLimits : printerLimits
  const checked = presets.map((preset) => ({ preset, reasons: limitViolations(limits, preset) }))
  const skipped = checked
    .filter(({ reasons }) => reasons.length > 0)
    .map(({ preset, reasons }) => ({ name: preset.name, reasons }))
  const fitting = checked.filter(({ reasons }) => reasons.length === 0).map(({ preset }) => preset)
  if (fitting.length === 0) {
    const detail = skipped.map(({ name, reasons }) => `"${name.slice(0, 80)}": ${reasons.join('; ')}`).join('. ')
    throw new VaultError('preset_out_of_range', `No profile of the file is within the limits: ${detail}.`)
  }
  return { ...(await savePresets(deps, kind, fitting, cura ? 'cura' : 'prusaslicer')), skipped }
}

/**
 * The presets a stored G-code file names: its filament profile names (`filament_settings_id`,
 * one per extruder) and printer profile name (`printer_settings_id`), as slicers write them.
 */
export async function linkedPresets(deps: Pick<PrintersDeps, 'database'>, fileId: string) {
  const file = await deps.database.db
    .selectFrom('files')
    .select(['id', 'format', 'metadata'])
    .where('id', '=', fileId)
    .executeTakeFirst()
  if (!file) throw new VaultError('not_found', `No file has the id ${fileId}.`)
  const gcode = (
    JSON.parse(file.metadata) as {
      gcode?: { config?: Record<string, string>; filament?: { name?: string | null }; printer_model?: string | null }
    }
  ).gcode
  const names = (value: string | null | undefined) =>
    (value ?? '')
      .split(';')
      .map((n) => n.trim().replace(/^"|"$/g, ''))
      .filter(Boolean)
  const filamentNames = [
    ...new Set([
      ...names(gcode?.config?.filament_settings_id),
      ...(gcode?.filament?.name ?? '').split(', ').filter(Boolean),
    ]),
  ]
  const printerNames = [...new Set(names(gcode?.config?.printer_settings_id))]
  const find = async <K extends PresetKind>(kind: K, wanted: string[]) =>
    wanted.length === 0
      ? []
      : (
          await deps.database.db
            .selectFrom(tableOf(kind))
            .selectAll()
            .where('name', 'in', wanted)
            .orderBy('name')
            .execute()
        ).map((row) => toRecord<K>(row))
  return {
    file_id: file.id,
    filament_names: filamentNames,
    printer_names: printerNames,
    filament_profiles: await find('filament', filamentNames),
    printer_profiles: await find('printer', printerNames),
  }
}
