import type { JobEnding, PrinterState } from './provider.js'

/**
 * How each provider's own state words map to our normalised states, as data so the tables
 * are reviewed (and tested) against the providers' documentation in one place.
 */
/**
 * The advice that ends the reason of a printer whose last job ended: the vault cannot see the bed.
 * Bed clearance (see `bed-clearance.ts`) replaces it when the printer waits for a confirmation.
 */
export const clearBedAdvice = 'make sure the bed is clear'

export interface MappedState {
  state: PrinterState
  /** Why, when the state alone does not say it; null for the plain cases. */
  reason: string | null
}

/**
 * Moonraker: `webhooks.state` is Klippy's own state; only when it is `ready` does
 * `print_stats.state` describe the printer. `complete` and `cancelled` mean the last job
 * ended and Klipper accepts a new one.
 */
export const moonrakerKlippyStates: Record<string, MappedState | 'use_print_stats'> = {
  ready: 'use_print_stats',
  startup: { state: 'busy', reason: 'Klipper is starting up' },
  shutdown: { state: 'error', reason: 'Klipper is shut down' },
  error: { state: 'error', reason: 'Klipper reports an error' },
}

export const moonrakerPrintStates: Record<string, MappedState> = {
  standby: { state: 'idle', reason: null },
  printing: { state: 'printing', reason: null },
  paused: { state: 'paused', reason: null },
  complete: { state: 'idle', reason: `the last job completed; ${clearBedAdvice}` },
  cancelled: { state: 'idle', reason: `the last job was cancelled; ${clearBedAdvice}` },
  // The last job failed (a G-code error, out-of-range move…); Klipper stays `error` until the
  // next job, which it accepts, so the printer takes work as after `complete` or `cancelled`.
  error: { state: 'idle', reason: `the last job ended with an error; ${clearBedAdvice}` },
}

/**
 * Klipper's `idle_timeout.state` is `Printing` whenever it runs G-code, not only a print job: a
 * console command, homing, `M190` heating, a macro. `print_stats` then still says `standby` (or
 * `complete`, `cancelled`), and a start would wait behind the command.
 */
export const moonrakerRunningCommand: MappedState = {
  state: 'busy',
  reason: 'Klipper is running a command (homing, heating or a macro)',
}

export const moonrakerWithoutVirtualSdcard: MappedState = {
  state: 'error',
  reason: "Klipper's config has no [virtual_sdcard] section, which printing through Moonraker needs",
}

export type OctoPrintFlag =
  | 'operational'
  | 'paused'
  | 'printing'
  | 'pausing'
  | 'resuming'
  | 'cancelling'
  | 'finishing'
  | 'sdReady'
  | 'error'
  | 'ready'
  | 'closedOrError'

export const octoprintNotConnected: MappedState = {
  state: 'offline',
  reason: 'OctoPrint is not connected to the printer',
}

/**
 * OctoPrint reports boolean `state.flags` (octoprint/printer/standard.py `_getStateFlags`); the
 * first rule whose flags all match wins. `printing` stays true while a job starts, pauses,
 * resumes, cancels or finishes, so those come first. A printer OctoPrint is not connected to
 * answers `GET /api/printer` with 409 instead (see `mapOctoPrintConnection`).
 */
export const octoprintFlagRules: Array<{ when: Partial<Record<OctoPrintFlag, boolean>> } & MappedState> = [
  { when: { error: true }, state: 'error', reason: 'the printer reported an error' },
  { when: { closedOrError: true }, ...octoprintNotConnected },
  { when: { cancelling: true }, state: 'busy', reason: 'cancelling a job' },
  { when: { pausing: true }, state: 'busy', reason: 'pausing a job' },
  { when: { resuming: true }, state: 'busy', reason: 'resuming a job' },
  { when: { paused: true }, state: 'paused', reason: null },
  // The file is sent; OctoPrint waits for the last moves and runs its after-print script.
  { when: { finishing: true }, state: 'printing', reason: 'finishing the job' },
  { when: { printing: true }, state: 'printing', reason: null },
  { when: { operational: true, ready: true }, state: 'idle', reason: null },
  {
    when: { operational: true },
    state: 'busy',
    reason: 'operational but not ready (a transfer to the SD card may be running)',
  },
]

/**
 * OctoPrint copying a file to the printer's SD card runs it as a print ("Sending file to SD",
 * `printing: true`) or as "Transferring file to SD": the printer is busy, not printing a job.
 */
const octoprintSdTransfer: MappedState = {
  state: 'busy',
  reason: "OctoPrint is copying a file to the printer's SD card",
}

/**
 * PrusaLink v1 `printer.state`, as Buddy firmware (src/state/printer_state.cpp) and Prusa-Link for
 * the MK3 report it. FINISHED and STOPPED are the last job's end screen, which stays until someone
 * at the printer leaves it; Buddy starts a new job from that screen and Prusa-Link leaves it by
 * itself after a few seconds, so the printer takes work, as after Klipper's complete or cancelled,
 * and the reason says to clear the bed. READY: someone at the printer marked it ready. BUSY: a
 * calibration, preheat, filament load or menu holds it, and it refuses a start. ATTENTION: a
 * question or warning on its screen (wrong filament, a crash, a fan) waits for a human, a job
 * perhaps paused behind it, so it takes no work until someone answers there.
 */
export const prusalinkStates: Record<string, MappedState> = {
  IDLE: { state: 'idle', reason: null },
  READY: { state: 'idle', reason: null },
  FINISHED: { state: 'idle', reason: `the last job finished; ${clearBedAdvice}` },
  STOPPED: { state: 'idle', reason: `the last job was stopped; ${clearBedAdvice}` },
  BUSY: { state: 'busy', reason: 'the printer is busy at its screen (a calibration, preheat, filament load or menu)' },
  PRINTING: { state: 'printing', reason: null },
  PAUSED: { state: 'paused', reason: null },
  ATTENTION: { state: 'error', reason: 'the printer waits for someone to answer a question or warning on its screen' },
  ERROR: { state: 'error', reason: 'the printer reports an error' },
}

/**
 * Each host's words for a job that is over, and how it ended: Klipper's `print_stats.state`,
 * PrusaLink's end screens, Bambu's `gcode_state` (FAILED also after a stop at the printer).
 */
export const moonrakerJobEndings: Record<string, JobEnding> = {
  complete: 'completed',
  cancelled: 'cancelled',
  error: 'failed',
}
export const prusalinkJobEndings: Record<string, JobEnding> = { FINISHED: 'completed', STOPPED: 'cancelled' }
export const bambuJobEndings: Record<string, JobEnding> = { FINISH: 'completed', FAILED: 'failed' }

/** How the job ended by a host's word from one of the tables above; null while it runs. */
export const jobEnding = (table: Record<string, JobEnding>, word: unknown): JobEnding | null =>
  lookUp(table, word) ?? null

/** The entry of `table` for a provider's word, own keys only (a printer saying "constructor" is unknown). */
const lookUp = <T>(table: Record<string, T>, word: unknown): T | undefined =>
  typeof word === 'string' && Object.hasOwn(table, word) ? table[word] : undefined

export const unknownState = (word: unknown): MappedState => ({
  state: 'unknown',
  reason: `unrecognised provider state ${JSON.stringify(word)}`,
})

/** An operational OctoPrint's state from its flags, and its state text for a copy to the SD card. */
export function mapOctoPrintFlags(flags: Partial<Record<OctoPrintFlag, unknown>>, text?: unknown): MappedState {
  if (typeof text === 'string' && /file to SD/i.test(text)) return octoprintSdTransfer
  const rule = octoprintFlagRules.find((candidate) =>
    Object.entries(candidate.when).every(([flag, value]) => flags[flag as OctoPrintFlag] === value),
  )
  return rule ? { state: rule.state, reason: rule.reason } : unknownState(flags)
}

/**
 * OctoPrint's state when it is not operational, from its state text (`GET /api/job` `state`,
 * `GET /api/connection` `current.state`) and `error` (octoprint/util/comm.py `getStateString`):
 * `Offline`/`Closed` is not connected; `Opening serial connection`, `Detecting serial connection`
 * (`Detecting baudrate` before 1.5) and `Connecting` are on the way; `Error` keeps the port but takes
 * no commands until reconnected; `Offline after error` closed it. OctoPrint before 1.8 put the error
 * in the text (`Error: …`, `Offline (Error: …)`). Null for the operational states, which the flags tell.
 */
export function mapOctoPrintConnection(text: unknown, error?: unknown): MappedState | null {
  if (typeof text !== 'string') return unknownState(text)
  const message = firstLine(error) ?? /error:\s*(.+?)\)?$/i.exec(text)?.[1]
  if (/^error/i.test(text)) return withMessage({ state: 'error', reason: 'OctoPrint reports an error' }, message)
  if (/^offline (after error|\(error)/i.test(text))
    return withMessage(
      { state: 'offline', reason: 'OctoPrint closed the connection to the printer after an error' },
      message,
    )
  if (/^(offline|closed)/i.test(text)) return octoprintNotConnected
  if (/^(opening|detecting|connecting)/i.test(text))
    return { state: 'offline', reason: `OctoPrint is connecting to the printer (${text})` }
  return null
}

/**
 * A PrusaLink state, with Prusa-Link's worst failing printer condition when it names one
 * (`status_printer: {ok: false, message: "Serial device does not exist"}`; `{ok: true, message: "OK"}` otherwise).
 */
export function mapPrusaLink(word: unknown, printerCheck: Record<string, unknown>): MappedState {
  const mapped = lookUp(prusalinkStates, word) ?? unknownState(word)
  return printerCheck.ok === false ? withMessage(mapped, printerCheck.message) : mapped
}

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

const withMessage = (mapped: MappedState, message: unknown): MappedState => {
  const line = firstLine(message)
  if (!line) return mapped
  return { state: mapped.state, reason: mapped.reason ? `${mapped.reason}: ${line}` : line }
}

/** A failed job's reason with Klipper's message before the advice: "…with an error (Move out of range…); make sure…". */
const withJobError = (mapped: MappedState, message: unknown): MappedState => {
  const line = firstLine(message)
  return line ? { state: mapped.state, reason: mapped.reason?.replace(';', ` (${line});`) ?? line } : mapped
}

/**
 * `stateMessage` is `webhooks.state_message`, shown for Klippy's own states; `jobMessage` is
 * `print_stats.message`, shown when the last job ended with an error.
 */
export function mapMoonraker(
  klippy: unknown,
  printStats: unknown,
  messages: { stateMessage?: unknown; jobMessage?: unknown; idleTimeout?: unknown } = {},
): MappedState {
  const byKlippy = lookUp(moonrakerKlippyStates, klippy)
  if (byKlippy === undefined) return unknownState(klippy)
  if (byKlippy !== 'use_print_stats') return withMessage(byKlippy, messages.stateMessage)
  // Klipper makes print_stats only with [virtual_sdcard], which Moonraker needs to print.
  if (printStats === undefined) return moonrakerWithoutVirtualSdcard
  const mapped = lookUp(moonrakerPrintStates, printStats)
  if (!mapped) return unknownState(printStats)
  if (mapped.state === 'idle' && messages.idleTimeout === 'Printing') return moonrakerRunningCommand
  return printStats === 'error' ? withJobError(mapped, messages.jobMessage) : mapped
}

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
