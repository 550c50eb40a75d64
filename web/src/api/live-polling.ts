/**
 * How often live printer state is asked for. The vault caches statuses for about as long, and
 * TanStack Query stops polling while the tab is hidden (`refetchIntervalInBackground` is false).
 */
export const livePollMs = 2_000

const moving = new Set(['printing', 'busy'])

/**
 * How often printers with these states are polled: always without live events; with them (which
 * bring every state change) only while one of them prints or is busy, as progress and temperatures
 * move without events. `undefined` states (not loaded yet) poll.
 */
export const printerPollMs = (live: boolean, states: string[] | undefined): number | false =>
  !live || states === undefined || states.some((state) => moving.has(state)) ? livePollMs : false
