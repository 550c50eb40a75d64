import type { components } from './schema'

/**
 * Files a printer can be sent: G-code, and a sliced `.gcode.3mf` (its `plates` read at ingest),
 * which Bambu Lab printers print as it is (the vault explains a refusal by any other).
 */
export const isPrintReady = (file: Pick<components['schemas']['File'], 'format' | 'metadata'>): boolean =>
  file.format === 'gcode' ||
  (file.format === '3mf' && Array.isArray(file.metadata.plates) && file.metadata.plates.length > 0)
