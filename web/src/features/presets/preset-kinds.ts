import type { components } from '../../api/schema'

export type PresetKind = 'filament' | 'printer'
export type FilamentProfile = components['schemas']['FilamentProfile']
export type PrinterProfile = components['schemas']['PrinterProfile']
export type Profile = FilamentProfile | PrinterProfile
export type FilamentBody = components['schemas']['CreateFilamentProfileRequest']
export type PrinterBody = components['schemas']['CreatePrinterProfileRequest']

/** One editable field of a profile, as the form shows it. */
export interface PresetField {
  key: string
  label: string
  type: 'text' | 'number'
  /** Shown after the number and in the list. */
  unit?: string
  placeholder?: string
}

export interface PresetKindInfo {
  /** The tab's and headings' word: `Filament`, `Printer`. */
  title: string
  /** What an import accepts, in words. */
  importFormats: string
  fields: PresetField[]
  /** The fields shown as list columns, besides the name. */
  columns: string[]
}

export const presetKinds: Record<PresetKind, PresetKindInfo> = {
  filament: {
    title: 'Filament',
    importFormats: 'a PrusaSlicer .ini bundle or a Cura .xml.fdm_material file',
    fields: [
      { key: 'material', label: 'Material', type: 'text', placeholder: 'PLA' },
      { key: 'vendor', label: 'Vendor', type: 'text' },
      { key: 'color', label: 'Colour', type: 'text', placeholder: 'Galaxy Black or #1a1a1a' },
      { key: 'diameter_mm', label: 'Diameter', type: 'number', unit: 'mm' },
      { key: 'density_g_cm3', label: 'Density', type: 'number', unit: 'g/cm³' },
      { key: 'nozzle_temperature_c', label: 'Nozzle temperature', type: 'number', unit: '°C' },
      { key: 'bed_temperature_c', label: 'Bed temperature', type: 'number', unit: '°C' },
      { key: 'cost_per_kg', label: 'Cost per kg', type: 'number' },
    ],
    columns: ['material', 'vendor', 'color'],
  },
  printer: {
    title: 'Printer',
    importFormats: 'a PrusaSlicer .ini bundle',
    fields: [
      { key: 'vendor', label: 'Vendor', type: 'text' },
      { key: 'bed_x_mm', label: 'Bed width (X)', type: 'number', unit: 'mm' },
      { key: 'bed_y_mm', label: 'Bed depth (Y)', type: 'number', unit: 'mm' },
      { key: 'max_height_mm', label: 'Maximum height', type: 'number', unit: 'mm' },
      { key: 'nozzle_diameter_mm', label: 'Nozzle diameter', type: 'number', unit: 'mm' },
      { key: 'gcode_flavor', label: 'G-code flavour', type: 'text', placeholder: 'marlin2' },
      { key: 'firmware_provider', label: 'Printer provider', type: 'text', placeholder: 'moonraker' },
    ],
    columns: ['vendor', 'nozzle_diameter_mm', 'gcode_flavor'],
  },
}

/** A profile's field as text for the list; empty for none. */
export function fieldText(profile: Profile, field: PresetField): string {
  const value = (profile as unknown as Record<string, string | number | null>)[field.key]
  if (value === null || value === undefined) return ''
  return field.unit ? `${value} ${field.unit}` : String(value)
}

/** A `#rrggbb` colour a swatch can show, or undefined for a colour name. */
export const hexColor = (value: unknown): string | undefined =>
  typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? value : undefined
