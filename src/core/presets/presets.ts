import type { Kysely } from 'kysely'
import type { Deps } from '../deps.js'
import { conflict, notFound } from '../errors.js'
import type { FilamentPreset, PrinterPreset } from './preset-import.js'

/**
 * Filament and printer profiles. Names are unique per kind; an import replaces the profile
 * of the same name, so importing a bundle again updates it instead of duplicating it.
 */
export type PresetKind = 'filament' | 'printer'
const tables = { filament: 'filament_profiles', printer: 'printer_profiles' } as const
const labels = { filament: 'filament profile', printer: 'printer profile' } as const

export type FilamentFields = Omit<FilamentPreset, 'settings'>
export type PrinterFields = Omit<PrinterPreset, 'settings'>
type Fields<K extends PresetKind> = K extends 'filament' ? FilamentFields : PrinterFields

export type PresetRecord<K extends PresetKind> = Fields<K> & {
  id: string
  source: string
  settings: Record<string, string>
  created_at: string
  updated_at: string
}

// The two tables share their shape apart from the profile fields; one typed view serves both.
type Loose = Kysely<Record<string, Record<string, unknown>>>
const table = (deps: Deps) => deps.database.db as unknown as Loose

const toRecord = <K extends PresetKind>(row: Record<string, unknown>): PresetRecord<K> =>
  ({ ...row, settings: JSON.parse(String(row.settings)) as Record<string, string> }) as PresetRecord<K>

export async function listPresets<K extends PresetKind>(
  deps: Deps,
  kind: K,
  search?: string,
): Promise<PresetRecord<K>[]> {
  let query = table(deps)
    .selectFrom(tables[kind] as string)
    .selectAll()
    .orderBy('name')
    .limit(1000)
  if (search) query = query.where('name', 'like', `%${search.replace(/[%_]/g, '')}%`)
  return (await query.execute()).map((row) => toRecord<K>(row))
}

export async function getPreset<K extends PresetKind>(deps: Deps, kind: K, id: string): Promise<PresetRecord<K>> {
  const row = await table(deps)
    .selectFrom(tables[kind] as string)
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row) throw notFound(`No ${labels[kind]} has the id ${id}.`)
  return toRecord<K>(row)
}

async function nameOwner(deps: Deps, kind: PresetKind, name: string): Promise<string | null> {
  const row = await table(deps)
    .selectFrom(tables[kind] as string)
    .select('id')
    .where('name', '=', name)
    .executeTakeFirst()
  return row ? String(row.id) : null
}

export async function createPreset<K extends PresetKind>(
  deps: Deps,
  kind: K,
  fields: Fields<K>,
  source = 'manual',
  settings: Record<string, string> = {},
): Promise<PresetRecord<K>> {
  if (await nameOwner(deps, kind, fields.name))
    throw conflict('name_taken', `A ${labels[kind]} named ${JSON.stringify(fields.name)} exists already.`)
  const now = deps.clock.now().toISOString()
  const id = crypto.randomUUID()
  await table(deps)
    .insertInto(tables[kind] as string)
    .values({ ...fields, id, source, settings: JSON.stringify(settings), created_at: now, updated_at: now })
    .execute()
  return getPreset(deps, kind, id)
}

export async function updatePreset<K extends PresetKind>(
  deps: Deps,
  kind: K,
  id: string,
  fields: Partial<Fields<K>>,
): Promise<PresetRecord<K>> {
  await getPreset(deps, kind, id)
  if (fields.name !== undefined) {
    const owner = await nameOwner(deps, kind, fields.name)
    if (owner && owner !== id)
      throw conflict('name_taken', `A ${labels[kind]} named ${JSON.stringify(fields.name)} exists already.`)
  }
  const changes: Record<string, unknown> = { ...fields, updated_at: deps.clock.now().toISOString() }
  await table(deps)
    .updateTable(tables[kind] as string)
    .set(changes)
    .where('id', '=', id)
    .execute()
  return getPreset(deps, kind, id)
}

export async function deletePreset(deps: Deps, kind: PresetKind, id: string): Promise<void> {
  await getPreset(deps, kind, id)
  await table(deps)
    .deleteFrom(tables[kind] as string)
    .where('id', '=', id)
    .execute()
}

/** Stores imported presets, replacing those of the same name. */
export async function savePresets(
  deps: Deps,
  kind: PresetKind,
  presets: (FilamentPreset | PrinterPreset)[],
  source: string,
) {
  const items: { id: string; name: string; created: boolean }[] = []
  const now = deps.clock.now().toISOString()
  await table(deps)
    .transaction()
    .execute(async (trx) => {
      for (const { settings, ...fields } of presets) {
        const existing = await trx
          .selectFrom(tables[kind] as string)
          .select('id')
          .where('name', '=', fields.name)
          .executeTakeFirst()
        const values = { ...fields, source, settings: JSON.stringify(settings), updated_at: now }
        if (existing) {
          await trx
            .updateTable(tables[kind] as string)
            .set(values)
            .where('id', '=', existing.id as string)
            .execute()
          items.push({ id: String(existing.id), name: fields.name, created: false })
        } else {
          const id = crypto.randomUUID()
          await trx
            .insertInto(tables[kind] as string)
            .values({ ...values, id, created_at: now })
            .execute()
          items.push({ id, name: fields.name, created: true })
        }
      }
    })
  return { created: items.filter((i) => i.created).length, updated: items.filter((i) => !i.created).length, items }
}

/**
 * The presets a stored G-code file names: its filament profile names (`filament_settings_id`,
 * one per extruder) and printer profile name (`printer_settings_id`), as slicers write them.
 */
export async function linkedPresets(deps: Deps, fileId: string) {
  const file = await deps.database.db
    .selectFrom('files')
    .select(['id', 'format', 'metadata'])
    .where('id', '=', fileId)
    .executeTakeFirst()
  if (!file) throw notFound(`No file has the id ${fileId}.`)
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
          await table(deps)
            .selectFrom(tables[kind] as string)
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
