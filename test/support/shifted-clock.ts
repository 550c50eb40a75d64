import type { Clock } from '../../src/core/runtime/clock.js'

/**
 * The real time plus an offset a test moves forward: the vault sees a token expire or a window
 * pass at once, without the test sleeping for it, while everything else keeps real time's pace.
 */
export interface ShiftedClock extends Clock {
  advance(ms: number): void
}

export function shiftedClock(): ShiftedClock {
  let offset = 0
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms
    },
  }
}
