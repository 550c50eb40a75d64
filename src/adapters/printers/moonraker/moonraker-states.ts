import { clearBedAdvice } from '../../../core/printers/bed-clearance.js'
import type { JobEnding } from '../../../core/printers/provider.js'
import { lookUp, type MappedState, unknownState, withJobError, withMessage } from '../state-words.js'

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

/** How Klipper's `print_stats.state` says a job that is over ended. */
export const moonrakerJobEndings: Record<string, JobEnding> = {
  complete: 'completed',
  cancelled: 'cancelled',
  error: 'failed',
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
