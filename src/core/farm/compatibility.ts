import type { PrintFacts } from './print-facts.js'

/** What the vault knows of a printer for the queue: its profile's figures and the filament loaded in it. */
export interface PrinterFacts {
  name: string
  /** The profile's `printer_model` setting (as PrusaSlicer, OrcaSlicer and Bambu Studio name models). */
  printer_model: string | null
  nozzle_diameter_mm: number | null
  bed_x_mm: number | null
  bed_y_mm: number | null
  max_height_mm: number | null
  /** Upper case; empty when nobody said. */
  loaded_filaments: string[]
}

/**
 * Whether a file fits a printer. `fits`: every rule could be checked and holds. `warnings`: none
 * is broken, but some could not be checked (the file or the printer does not state a value); the
 * user accepts them per job, the queue never sends on them silently. `refused`: a rule is broken.
 */
export interface Compatibility {
  verdict: 'fits' | 'warnings' | 'refused'
  reasons: string[]
  warnings: string[]
}

/** Model names compared as slicers and hosts spell them: case, spaces, dashes and underscores aside. */
const sameModel = (a: string, b: string) => {
  const key = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '')
  return key(a) === key(b)
}

/** A millimetre figure as people write it. */
const mm = (value: number) => `${Math.round(value * 100) / 100} mm`

/** The rules, each adding a reason when broken and a warning when it cannot be checked. */
export function checkCompatibility(file: PrintFacts, printer: PrinterFacts): Compatibility {
  const reasons: string[] = []
  const warnings: string[] = []

  if (file.printer_model === null) warnings.push('the file does not say which printer model it was sliced for')
  else if (printer.printer_model === null)
    warnings.push(
      `${printer.name}'s profile does not name its printer model (the file was sliced for ${file.printer_model})`,
    )
  else if (!sameModel(file.printer_model, printer.printer_model))
    reasons.push(`sliced for a ${file.printer_model}; ${printer.name} is a ${printer.printer_model}`)

  if (file.nozzle_diameter_mm === null) warnings.push('the file does not state its nozzle diameter')
  else if (printer.nozzle_diameter_mm === null)
    warnings.push(`${printer.name}'s profile does not state its nozzle diameter`)
  else if (Math.abs(file.nozzle_diameter_mm - printer.nozzle_diameter_mm) > 0.001)
    reasons.push(
      `sliced for a ${mm(file.nozzle_diameter_mm)} nozzle; ${printer.name} has a ${mm(printer.nozzle_diameter_mm)} one`,
    )

  if (file.filament_types.length === 0) warnings.push('the file does not state its filament type')
  else if (printer.loaded_filaments.length === 0)
    warnings.push(
      `nobody said which filament ${printer.name} has loaded (the file uses ${file.filament_types.join(', ')})`,
    )
  else {
    const missing = file.filament_types.filter((type) => !printer.loaded_filaments.includes(type))
    if (missing.length > 0)
      reasons.push(`uses ${missing.join(', ')}; ${printer.name} has ${printer.loaded_filaments.join(', ')} loaded`)
  }

  if (file.bed !== null) {
    if (printer.bed_x_mm === null || printer.bed_y_mm === null)
      warnings.push(`${printer.name}'s profile does not state its bed size`)
    // The G-code's coordinates were computed for the slicer's bed: one larger than the printer's can reach past it.
    else if (file.bed.x > printer.bed_x_mm + 0.5 || file.bed.y > printer.bed_y_mm + 0.5)
      reasons.push(
        `sliced for a ${mm(file.bed.x)} × ${mm(file.bed.y)} bed; ${printer.name}'s is ${mm(printer.bed_x_mm)} × ${mm(printer.bed_y_mm)}`,
      )
  }

  if (file.height_mm !== null && printer.max_height_mm !== null && file.height_mm > printer.max_height_mm + 0.01)
    reasons.push(`${mm(file.height_mm)} tall; ${printer.name} prints up to ${mm(printer.max_height_mm)}`)

  const verdict = reasons.length > 0 ? 'refused' : warnings.length > 0 ? 'warnings' : 'fits'
  return { verdict, reasons, warnings }
}

/** Whether a job may go to a printer: it fits, or its warnings were accepted. */
export const mayPrint = (compatibility: Compatibility, acceptWarnings: boolean): boolean =>
  compatibility.verdict === 'fits' || (compatibility.verdict === 'warnings' && acceptWarnings)
