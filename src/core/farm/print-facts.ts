/**
 * What a print-ready file says about the printer it was sliced for, read from the metadata the vault
 * stored for it: a G-code's (`gcode`: PrusaSlicer, OrcaSlicer, Bambu Studio, Cura…) or a sliced
 * `.gcode.3mf`'s (its project settings and plates). Every figure is null, every list empty, where the
 * file does not say.
 */
export interface PrintFacts {
  printer_model: string | null
  nozzle_diameter_mm: number | null
  /** The distinct filament types the print uses (`PLA`, `PETG`), upper case. */
  filament_types: string[]
  /** The bed the slicer placed the print on (its G-code's coordinates assume it), mm. */
  bed: { x: number; y: number } | null
  /** The height of the print, mm. */
  height_mm: number | null
}

interface StoredGcode {
  printer_model?: unknown
  nozzle_diameter_mm?: unknown
  max_layer_z?: unknown
  filament?: { type?: unknown }
  config?: Record<string, unknown>
}

interface StoredMetadata {
  gcode?: StoredGcode
  slicer_config?: Record<string, unknown> | null
  plates?: Array<{ filaments?: Array<{ type?: unknown }> }>
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null)
const positive = (value: unknown): number | null => {
  const number = typeof value === 'string' ? Number.parseFloat(value) : value
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : null
}

/** `PLA, PETG` or `PLA;PLA` into distinct upper-case types. */
const types = (values: unknown[]): string[] => [
  ...new Set(
    values
      .flatMap((value) => (typeof value === 'string' ? value.split(/[,;]/) : []))
      .map((type) => type.trim().replace(/^"|"$/g, '').toUpperCase())
      .filter((type) => type !== ''),
  ),
]

/**
 * The bed of PrusaSlicer's `bed_shape` or OrcaSlicer's and Bambu Studio's `printable_area`: the
 * corner points `0x0,250x0,250x210,0x210`, as the extent they span.
 */
function bedOf(config: Record<string, unknown> | undefined | null): PrintFacts['bed'] {
  const shape = text(config?.bed_shape) ?? text(config?.printable_area)
  if (!shape) return null
  const points = shape.split(',').map((point) => point.split('x').map(Number))
  if (points.some((point) => point.length !== 2 || point.some((value) => !Number.isFinite(value)))) return null
  const span = (axis: 0 | 1) =>
    Math.max(...points.map((point) => point[axis] ?? 0)) - Math.min(...points.map((point) => point[axis] ?? 0))
  const bed = { x: span(0), y: span(1) }
  return bed.x > 0 && bed.y > 0 ? bed : null
}

/** The facts of a stored file from its format and its metadata JSON. */
export function printFactsOf(format: string, metadataJson: string): PrintFacts {
  const metadata = JSON.parse(metadataJson) as StoredMetadata
  if (format === 'gcode') {
    const gcode = metadata.gcode ?? {}
    return {
      printer_model: text(gcode.printer_model),
      nozzle_diameter_mm: positive(gcode.nozzle_diameter_mm),
      filament_types: types([gcode.filament?.type]),
      bed: bedOf(gcode.config),
      height_mm: positive(gcode.max_layer_z),
    }
  }
  const config = metadata.slicer_config ?? {}
  const plateTypes = (metadata.plates?.[0]?.filaments ?? []).map((filament) => filament.type)
  return {
    printer_model: text(config.printer_model),
    nozzle_diameter_mm: positive(text(config.nozzle_diameter)?.split(',')[0]),
    filament_types: types(plateTypes.length > 0 ? plateTypes : [config.filament_type]),
    bed: bedOf(config),
    height_mm: null,
  }
}
