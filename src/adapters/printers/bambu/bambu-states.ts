import { clearBedAdvice } from '../../../core/printers/bed-clearance.js'
import type { JobEnding } from '../../../core/printers/provider.js'
import { lookUp, type MappedState, unknownState, withJobError, withMessage } from '../state-words.js'

/**
 * Bambu Lab `print.gcode_state` (OpenBambuAPI mqtt.md; ha-bambulab and Bambuddy list the same
 * words). PREPARE is a job being read and set up before it runs; SLICING a cloud job the printer
 * slices itself; INIT its start-up. FINISH and FAILED stay until the next job, which the printer
 * takes from there, as after Klipper's complete or cancelled.
 */
export const bambuStates: Record<string, MappedState> = {
  IDLE: { state: 'idle', reason: null },
  FINISH: { state: 'idle', reason: `the last job finished; ${clearBedAdvice}` },
  FAILED: { state: 'idle', reason: `the last job failed or was stopped; ${clearBedAdvice}` },
  PREPARE: { state: 'busy', reason: 'the printer is preparing a job' },
  SLICING: { state: 'busy', reason: 'the printer is slicing a job' },
  INIT: { state: 'busy', reason: 'the printer is starting up' },
  RUNNING: { state: 'printing', reason: null },
  PAUSE: { state: 'paused', reason: null },
  OFFLINE: { state: 'offline', reason: 'the printer reports itself offline' },
}

/** Bambu's `gcode_state` for a job that is over (FAILED also after a stop at the printer), and how it ended. */
export const bambuJobEndings: Record<string, JobEnding> = { FINISH: 'completed', FAILED: 'failed' }

/** One entry of Bambu's HMS (health management) list, as the printer's screen and wiki name it. */
export interface BambuHmsError {
  /** `HMS_0300_0100_0001_0001`: attr and code in hex, as on Bambu's wiki. */
  code: string
  severity: 'fatal' | 'serious' | 'common' | 'info' | 'unknown'
}

const hmsSeverities: Record<number, BambuHmsError['severity']> = { 1: 'fatal', 2: 'serious', 3: 'common', 4: 'info' }

/**
 * The HMS codes that say a cancelled job was cancelled (`0300_400C`, `0500_400E`): echoes of
 * someone's action, not faults (Bambuddy filters them the same way).
 */
const hmsUserActions = new Set(['0300_400C', '0500_400E'])

/**
 * The printer's HMS list (`print.hms`: `{attr, code}` numbers): severity in the code's high half
 * (ha-bambulab's reading), status codes below 0x4000 and cancel echoes left out.
 */
export function bambuHmsErrors(hms: unknown): BambuHmsError[] {
  if (!Array.isArray(hms)) return []
  const hex = (value: number) => (value >>> 0).toString(16).toUpperCase().padStart(8, '0')
  return hms.flatMap((entry) => {
    const { attr, code } = (entry ?? {}) as { attr?: unknown; code?: unknown }
    if (typeof attr !== 'number' || typeof code !== 'number' || code >>> 0 < 0x4000) return []
    const [a, c] = [hex(attr), hex(code)]
    if (hmsUserActions.has(`${a.slice(0, 4)}_${c.slice(4)}`)) return []
    const code16 = `HMS_${a.slice(0, 4)}_${a.slice(4)}_${c.slice(0, 4)}_${c.slice(4)}`
    return [{ code: code16, severity: hmsSeverities[code >>> 16] ?? 'unknown' }]
  })
}

/** `HMS_0500_0500_0001_0007`: the printer could not verify a command (Developer Mode is off). */
export const bambuCommandNotVerified = 'HMS_0500_0500_0001_0007'

/** The refused command is about the sender, not the machine: it says what to switch on instead. */
const hmsMeaning = (error: BambuHmsError) =>
  error.code === bambuCommandNotVerified
    ? 'a command from the vault was not verified: turn on LAN Only and Developer Mode'
    : error.severity

/**
 * A Bambu printer's state from its `gcode_state`, HMS errors and `print_error`. A fatal or serious
 * HMS error holds a printer that would otherwise take work in `error` (it waits for someone at its
 * screen), keeping a failed job's error in the reason; while a job is on, the state stays and the reason names the errors, as do lesser ones.
 */
export function mapBambu(gcodeState: unknown, hms: BambuHmsError[], printError: unknown): MappedState {
  const mapped = lookUp(bambuStates, gcodeState) ?? unknownState(gcodeState)
  const errorHex = typeof printError === 'number' ? (printError >>> 0).toString(16).toUpperCase().padStart(8, '0') : ''
  const failure =
    gcodeState === 'FAILED' && printError !== 0 && errorHex
      ? withJobError(mapped, `error ${errorHex.slice(0, 4)}_${errorHex.slice(4)}`)
      : mapped
  if (hms.length === 0) return failure
  const listed = hms.map((error) => `${error.code} (${hmsMeaning(error)})`).join(', ')
  const holding = hms.some(
    (error) => (error.severity === 'fatal' || error.severity === 'serious') && error.code !== bambuCommandNotVerified,
  )
  if (holding && failure.state === 'idle') {
    // A failed job's own error stays in front: the HMS entry often only echoes it.
    const held = `the printer reports ${listed}; see its screen`
    return { state: 'error', reason: failure === mapped ? held : `${failure.reason}; ${held}` }
  }
  return withMessage(failure, `the printer reports ${listed}`)
}
