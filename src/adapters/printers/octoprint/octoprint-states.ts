import { firstLine, type MappedState, unknownState, withMessage } from '../state-words.js'

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
