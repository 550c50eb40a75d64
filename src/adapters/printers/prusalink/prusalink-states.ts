import { clearBedAdvice } from '../../../core/printers/bed-clearance.js'
import type { JobEnding } from '../../../core/printers/provider.js'
import { lookUp, type MappedState, unknownState, withMessage } from '../state-words.js'

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

/** PrusaLink's end screens, and how the job ended. */
export const prusalinkJobEndings: Record<string, JobEnding> = { FINISHED: 'completed', STOPPED: 'cancelled' }

/**
 * A PrusaLink state, with Prusa-Link's worst failing printer condition when it names one
 * (`status_printer: {ok: false, message: "Serial device does not exist"}`; `{ok: true, message: "OK"}` otherwise).
 */
export function mapPrusaLink(word: unknown, printerCheck: Record<string, unknown>): MappedState {
  const mapped = lookUp(prusalinkStates, word) ?? unknownState(word)
  return printerCheck.ok === false ? withMessage(mapped, printerCheck.message) : mapped
}
