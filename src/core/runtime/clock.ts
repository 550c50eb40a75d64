/** The current time, injected so tests and restores can control it. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }
