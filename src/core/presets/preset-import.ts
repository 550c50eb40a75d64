import type { FilamentProfilesTable, PrinterProfilesTable } from '../db/schema.js'

/**
 * Reading slicer presets: PrusaSlicer `.ini` bundles (vendor bundles and exported config
 * bundles, `[filament:…]` and `[printer:…]` sections with `inherits` resolved; `*name*`
 * sections are abstract templates and are not imported) and Cura `.xml.fdm_material` files.
 */

/** A preset as read from a file: its profile row's fields without the row's bookkeeping, settings as an object. */
type Preset<Row> = Omit<Row, 'id' | 'source' | 'settings' | 'created_at' | 'updated_at'> & {
  settings: Record<string, string>
}
export type FilamentPreset = Preset<FilamentProfilesTable>
export type PrinterPreset = Preset<PrinterProfilesTable>

export class PresetFormatError extends Error {
  override name = 'PresetFormatError'
}

type Sections = Map<string, Map<string, Record<string, string>>>

function parseIni(text: string): Sections {
  const sections: Sections = new Map()
  let current: Record<string, string> | null = null
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue
    const header = /^\[([^:\]]+)(?::(.*))?\]$/.exec(line)
    if (header) {
      const kind = (header[1] ?? '').trim()
      const name = (header[2] ?? '').trim()
      const named = sections.get(kind) ?? new Map()
      sections.set(kind, named)
      current = {}
      named.set(name, current)
      continue
    }
    const eq = line.indexOf('=')
    if (eq > 0 && current) current[line.slice(0, eq).trim()] = line.slice(eq + 1).trim()
  }
  return sections
}

/** The section's own keys over its parents' (later parents override earlier ones). */
function resolve(
  kind: Map<string, Record<string, string>>,
  name: string,
  seen: Set<string> = new Set(),
): Record<string, string> {
  const own = kind.get(name)
  if (!own || seen.has(name)) return {}
  seen.add(name)
  const parents = (own.inherits ?? '')
    .split(';')
    .map((p) => p.trim().replace(/^"|"$/g, ''))
    .filter(Boolean)
  const merged: Record<string, string> = {}
  for (const parent of parents) Object.assign(merged, resolve(kind, parent, seen))
  const { inherits: _ignored, ...rest } = own
  return Object.assign(merged, rest)
}

const number = (value: string | undefined): number | null => {
  const first = value?.split(/[,;]/)[0]?.trim().replace(/^"|"$/g, '')
  if (first === undefined || first === '' || first === 'nil') return null
  const parsed = Number(first)
  return Number.isFinite(parsed) ? parsed : null
}
const text = (value: string | undefined): string | null => {
  const first = value?.split(';')[0]?.trim().replace(/^"|"$/g, '')
  return first ? first : null
}

/**
 * The profiles of a PrusaSlicer config bundle. `providerFor` names the printer provider that
 * speaks to a physical printer's `host_type` (null for none); a printer whose G-code flavour is
 * Klipper is one Klipper's host drives, whatever host it names.
 */
export function readPrusaSlicerBundle(
  content: string,
  providerFor: (hostType: string) => string | null,
): { filaments: FilamentPreset[]; printers: PrinterPreset[] } {
  const sections = parseIni(content)
  if (!sections.has('filament') && !sections.has('printer'))
    throw new PresetFormatError('This is not a PrusaSlicer bundle: it has no [filament:…] or [printer:…] sections.')
  const vendorName = text(sections.get('vendor')?.get('')?.name)
  const concrete = (kind: string) =>
    [...(sections.get(kind)?.keys() ?? [])].filter((name) => name !== '' && !/^\*.*\*$/.test(name))
  const filamentKind = sections.get('filament') ?? new Map()
  const printerKind = sections.get('printer') ?? new Map()
  const filaments = concrete('filament').map((name): FilamentPreset => {
    const s = resolve(filamentKind, name)
    return {
      name,
      material: text(s.filament_type),
      vendor: text(s.filament_vendor) ?? vendorName,
      color: text(s.filament_colour),
      diameter_mm: number(s.filament_diameter),
      density_g_cm3: number(s.filament_density) || null,
      nozzle_temperature_c: number(s.temperature),
      bed_temperature_c: number(s.bed_temperature),
      cost_per_kg: number(s.filament_cost) || null,
      settings: s,
    }
  })
  const printers = concrete('printer').map((name): PrinterPreset => {
    const s = resolve(printerKind, name)
    const corners = (s.bed_shape ?? '').split(',').map((point) => point.split('x').map(Number))
    const xs = corners.map(([x]) => x ?? Number.NaN).filter(Number.isFinite)
    const ys = corners.map(([, y]) => y ?? Number.NaN).filter(Number.isFinite)
    const flavor = text(s.gcode_flavor)
    return {
      name,
      vendor: text(s.printer_vendor) ?? vendorName,
      bed_x_mm: xs.length > 1 ? Math.max(...xs) - Math.min(...xs) : null,
      bed_y_mm: ys.length > 1 ? Math.max(...ys) - Math.min(...ys) : null,
      max_height_mm: number(s.max_print_height),
      nozzle_diameter_mm: number(s.nozzle_diameter),
      gcode_flavor: flavor,
      firmware_provider: providerFor(text(s.host_type) ?? '') ?? (flavor === 'klipper' ? providerFor('klipper') : null),
      settings: s,
    }
  })
  return { filaments, printers }
}

const decodeXml = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim()

/** A Cura material file: name from brand, material and colour; settings outside `<machine>` only. */
export function readCuraMaterial(content: string): FilamentPreset {
  if (!/<fdmmaterial[\s>]/.test(content))
    throw new PresetFormatError('This is not a Cura material file: it has no <fdmmaterial> element.')
  const tag = (name: string, within = content) => {
    const match = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(within)
    return match ? decodeXml(match[1] ?? '') : null
  }
  const nameBlock = /<name>([\s\S]*?)<\/name>/.exec(content)?.[1] ?? ''
  const brand = tag('brand', nameBlock)
  const material = tag('material', nameBlock)
  const color = tag('color', nameBlock)
  const label = tag('label', nameBlock)
  const settingsBlock = (tag('settings') ?? '').replace(/<machine[\s>][\s\S]*?<\/machine>/g, '')
  const settings: Record<string, string> = {}
  for (const [, key = '', value = ''] of settingsBlock.matchAll(/<setting key="([^"]+)">([^<]*)<\/setting>/g))
    settings[key] = decodeXml(value)
  const guid = tag('GUID')
  if (guid) settings.guid = guid
  const colorCode = tag('color_code')
  const properties = tag('properties') ?? ''
  const name = label ?? [brand, material, color && color !== 'Generic' ? color : null].filter(Boolean).join(' ')
  if (!name) throw new PresetFormatError('The Cura material names no brand, material or label.')
  const diameter = number(tag('diameter', properties) ?? undefined)
  return {
    name: diameter ? `${name} ${diameter}mm` : name,
    material,
    vendor: brand,
    color: colorCode ?? color,
    diameter_mm: diameter,
    density_g_cm3: number(tag('density', properties) ?? undefined),
    nozzle_temperature_c: number(settings['print temperature']),
    bed_temperature_c: number(settings['heated bed temperature']),
    cost_per_kg: null,
    settings,
  }
}
