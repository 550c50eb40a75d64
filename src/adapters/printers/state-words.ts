import type { JobEnding, PrinterState } from '../../core/printers/provider.js'

/**
 * What every provider's state table is made of: a host's own state word mapped to a normalised
 * state and the reason it shows. Each provider keeps its table in its own folder
 * (`<provider>/<provider>-states.ts`), reviewed and tested against that host's documentation.
 */
export interface MappedState {
  state: PrinterState
  /** Why, when the state alone does not say it; null for the plain cases. */
  reason: string | null
}

/** How the job ended by a host's word from its table; null while it runs. */
export const jobEnding = (table: Record<string, JobEnding>, word: unknown): JobEnding | null =>
  lookUp(table, word) ?? null

/** The entry of `table` for a provider's word, own keys only (a printer saying "constructor" is unknown). */
export const lookUp = <T>(table: Record<string, T>, word: unknown): T | undefined =>
  typeof word === 'string' && Object.hasOwn(table, word) ? table[word] : undefined

export const unknownState = (word: unknown): MappedState => ({
  state: 'unknown',
  reason: `unrecognised provider state ${JSON.stringify(word)}`,
})

/**
 * Klipper's messages (`webhooks.state_message`, a failed job's `print_stats.message`) span lines,
 * often with a leading newline, and go on to generic advice ("Once the underlying issue is
 * corrected, use the FIRMWARE_RESTART command…"): the first line says what happened.
 */
export function firstLine(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined
  return message
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '')
}

export const withMessage = (mapped: MappedState, message: unknown): MappedState => {
  const line = firstLine(message)
  if (!line) return mapped
  return { state: mapped.state, reason: mapped.reason ? `${mapped.reason}: ${line}` : line }
}

/** A failed job's reason with Klipper's message before the advice: "…with an error (Move out of range…); make sure…". */
export const withJobError = (mapped: MappedState, message: unknown): MappedState => {
  const line = firstLine(message)
  return line ? { state: mapped.state, reason: mapped.reason?.replace(';', ` (${line});`) ?? line } : mapped
}
