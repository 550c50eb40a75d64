/**
 * Wakes this process's event readers (the stream, the webhook deliverer) as soon as it publishes.
 * Events other processes publish are found by reading the database on a timer, so the signal
 * only shortens the wait; nothing is lost when it is missed.
 */
export interface EventSignal {
  notify(): void
  /** How many times `notify` was called: read it before looking, and pass it to `wait`. */
  readonly count: number
  /**
   * Settles at the next `notify`, after `ms`, or when `abort` fires, whichever comes first; at once
   * when `notify` was called since `count` was `seen`, so a publish made while the reader looked is
   * not waited past.
   */
  wait(ms: number, seen: number, abort?: AbortSignal): Promise<void>
}

export function createEventSignal(): EventSignal {
  let waiters = new Set<() => void>()
  let count = 0
  return {
    notify() {
      count++
      const woken = waiters
      waiters = new Set()
      for (const wake of woken) wake()
    },
    get count() {
      return count
    },
    wait(ms, seen, abort) {
      return new Promise((resolve) => {
        if (abort?.aborted || count !== seen) return resolve()
        const done = () => {
          clearTimeout(timer)
          waiters.delete(done)
          abort?.removeEventListener('abort', done)
          resolve()
        }
        const timer = setTimeout(done, ms)
        // Where timers can be unreferenced (Node), a waiting reader does not keep the process alive.
        ;(timer as { unref?: () => void }).unref?.()
        waiters.add(done)
        abort?.addEventListener('abort', done, { once: true })
      })
    },
  }
}
