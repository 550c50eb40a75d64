import type { FilamentPreset, PrinterPreset } from './preset-import.js'

/**
 * The bounds of a profile's fields: the one definition that the API's schemas (created and
 * changed profiles) and the import of slicer files both keep, so every stored profile fits the
 * answers that list it.
 */
export interface TextLimit {
  kind: 'text'
  maxLength: number
}
export interface NumberLimit {
  kind: 'number'
  min: number
  /** Whether `min` itself is allowed (a temperature of 0 °C) or not (a diameter of 0 mm). */
  minIncluded: boolean
  max: number
}
export type FieldLimit = TextLimit | NumberLimit

const text = (maxLength: number): TextLimit => ({ kind: 'text', maxLength })
const positive: NumberLimit = { kind: 'number', min: 0, minIncluded: false, max: 100_000 }
const range = (min: number, max: number): NumberLimit => ({ kind: 'number', min, minIncluded: true, max })

export const filamentLimits = {
  name: text(200),
  material: text(50),
  vendor: text(100),
  color: text(100),
  diameter_mm: positive,
  density_g_cm3: positive,
  nozzle_temperature_c: positive,
  bed_temperature_c: range(0, 200),
  cost_per_kg: range(0, 100_000),
} satisfies Record<keyof Omit<FilamentPreset, 'settings'>, FieldLimit>

export const printerLimits = {
  name: text(200),
  vendor: text(100),
  bed_x_mm: positive,
  bed_y_mm: positive,
  max_height_mm: positive,
  nozzle_diameter_mm: positive,
  gcode_flavor: text(50),
  firmware_provider: text(50),
} satisfies Record<keyof Omit<PrinterPreset, 'settings'>, FieldLimit>

/** What in `preset` breaks `limits`, one sentence a field; empty when it fits. Null fields always fit. */
export function limitViolations(limits: Record<string, FieldLimit>, preset: Record<string, unknown>): string[] {
  return Object.entries(limits).flatMap(([field, limit]) => {
    const value = preset[field]
    if (value === null || value === undefined) return []
    if (limit.kind === 'text') {
      const length = String(value).length
      return length > limit.maxLength ? [`${field} is ${length} characters long (at most ${limit.maxLength})`] : []
    }
    const number = Number(value)
    const low = limit.minIncluded ? number < limit.min : number <= limit.min
    if (!low && number <= limit.max) return []
    const lower = limit.minIncluded ? `at least ${limit.min}` : `above ${limit.min}`
    return [`${field} is ${number} (${lower}, at most ${limit.max})`]
  })
}
