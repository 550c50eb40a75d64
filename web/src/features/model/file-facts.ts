import { formatBytes } from '../../ui/format-bytes'
import { formatDimensions, formatDuration, formatNumber } from './format'
import type { ModelFile } from './types'

/** One figure read from a file, as shown: "Triangles" → "12". */
export interface Fact {
  label: string
  value: string
}

// The metadata is free-form JSON (its shape is described in the API reference): read it defensively.
type Json = Record<string, unknown>
const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

function meshFacts(mesh: Json): Fact[] {
  const facts: Fact[] = []
  const triangles = num(mesh.triangles)
  if (triangles !== undefined) facts.push({ label: 'Triangles', value: formatNumber(triangles, 0) })
  const size = list(mesh.size).map(num)
  if (size.length === 3 && size.every((v) => v !== undefined)) {
    facts.push({ label: 'Size (X × Y × Z)', value: formatDimensions(size as number[]) })
  }
  const volume = num(mesh.volume)
  if (volume !== undefined) facts.push({ label: 'Volume', value: `${formatNumber(volume / 1000, 2)} cm³` })
  const area = num(mesh.area)
  if (area !== undefined) facts.push({ label: 'Surface area', value: `${formatNumber(area / 100, 1)} cm²` })
  if (typeof mesh.manifold === 'boolean') {
    facts.push({ label: 'Watertight', value: mesh.manifold ? 'Yes' : 'No (open edges)' })
  }
  return facts
}

function threeMfFacts(metadata: Json): Fact[] {
  const facts: Fact[] = []
  const model = record(metadata.model) ?? {}
  for (const [key, label] of [
    ['title', 'Title'],
    ['designer', 'Designer'],
    ['application', 'Made with'],
  ] as const) {
    const value = str(model[key])
    if (value) facts.push({ label, value })
  }
  const objects = list(metadata.objects)
    .map((object) => str(record(object)?.name))
    .filter((name) => name !== undefined)
  if (objects.length > 0) facts.push({ label: 'Objects', value: objects.join(', ') })
  return facts
}

function gcodeFacts(gcode: Json): Fact[] {
  const facts: Fact[] = []
  const add = (label: string, value: string | undefined) => value && facts.push({ label, value })
  const slicer = record(gcode.slicer)
  add('Slicer', slicer && [str(slicer.name), str(slicer.version)].filter(Boolean).join(' '))
  const time = num(gcode.estimated_time_s)
  add('Print time', time === undefined ? undefined : formatDuration(time))
  const filament = record(gcode.filament) ?? {}
  const amounts = [
    num(filament.length_mm) !== undefined ? `${formatNumber((filament.length_mm as number) / 1000, 2)} m` : undefined,
    num(filament.weight_g) !== undefined ? `${formatNumber(filament.weight_g as number)} g` : undefined,
  ].filter(Boolean)
  add('Filament', [str(filament.type), str(filament.name), amounts.join(', ')].filter(Boolean).join(' · '))
  const layer = num(gcode.layer_height_mm)
  add('Layer height', layer === undefined ? undefined : `${formatNumber(layer, 2)} mm`)
  const nozzle = num(gcode.nozzle_diameter_mm)
  add('Nozzle', nozzle === undefined ? undefined : `${formatNumber(nozzle, 2)} mm`)
  add('Printer', str(gcode.printer_model))
  const temperatures = [num(gcode.nozzle_temperature), num(gcode.bed_temperature)]
  if (temperatures.some((t) => t !== undefined)) {
    add('Temperatures', temperatures.map((t, i) => `${i ? 'bed' : 'nozzle'} ${t ?? '?'} °C`).join(', '))
  }
  const layers = num(gcode.layer_count)
  add('Layers', layers === undefined ? undefined : formatNumber(layers, 0))
  const objects = list(gcode.objects).map(str).filter(Boolean)
  add('Objects', objects.length > 0 ? objects.join(', ') : undefined)
  const thumbnails = list(gcode.thumbnails)
    .map(record)
    .map((t) => t && `${num(t.width)}×${num(t.height)}`)
    .filter(Boolean)
  add('Embedded thumbnails', thumbnails.length > 0 ? thumbnails.join(', ') : undefined)
  return facts
}

/**
 * A sliced `.gcode.3mf` in the terms of the G-code it carries, so it shows as G-code does: its
 * first sliced plate (the one a printer is sent) for time and filament, the package's settings
 * for printer, layer height and nozzle. Undefined for a 3MF without sliced plates.
 */
function slicedPlateAsGcode(metadata: Json): Json | undefined {
  const plate = record(list(metadata.plates)[0])
  if (!plate) return undefined
  const settings = record(metadata.slicer_config) ?? {}
  // Settings lists (one value per extruder) are joined with ","; the first applies.
  const setting = (key: string) => {
    const value = Number.parseFloat(str(settings[key]) ?? '')
    return Number.isFinite(value) ? value : undefined
  }
  const filaments = list(plate.filaments).map((filament) => record(filament) ?? {})
  const usedM = filaments.map((filament) => num(filament.used_m))
  return {
    estimated_time_s: plate.prediction_s,
    filament: {
      type: [...new Set(filaments.map((filament) => str(filament.type)).filter(Boolean))].join(', '),
      length_mm:
        usedM.length > 0 && usedM.every((m) => m !== undefined)
          ? usedM.reduce((total, m) => total + (m as number), 0) * 1000
          : undefined,
      weight_g: plate.weight_g,
    },
    layer_height_mm: setting('layer_height'),
    nozzle_diameter_mm: setting('nozzle_diameter'),
    printer_model: str(settings.printer_model),
  }
}

/** What the vault read from a file, in the order a maker looks for it. */
export function fileFacts(file: ModelFile): Fact[] {
  const metadata = file.metadata as Json
  const facts: Fact[] = [{ label: 'File size', value: formatBytes(file.size) }]
  const mesh = record(metadata.mesh)
  if (mesh) facts.push(...meshFacts(mesh))
  if (file.format === '3mf') facts.push(...threeMfFacts(metadata))
  const gcode = record(metadata.gcode) ?? (file.format === '3mf' ? slicedPlateAsGcode(metadata) : undefined)
  if (gcode) facts.push(...gcodeFacts(gcode))
  facts.push({ label: 'Uploaded', value: new Date(file.created_at).toLocaleString() })
  return facts
}
