/**
 * Wakes this process's event readers (the stream, the webhook deliverer) as soon as it publishes.
 * Events other processes publish are found by reading the database on a timer, so the signal
 * only shortens the wait; nothing is lost when it is missed.
 */
export interface EventSignal {
  notify(): void
  /** Settles at the next `notify`, after `ms`, or when `abort` fires, whichever comes first. */
  wait(ms: number, abort?: AbortSignal): Promise<void>
}

export function createEventSignal(): EventSignal {
  let waiters = new Set<() => void>()
  return {
    notify() {
      const woken = waiters
      waiters = new Set()
      for (const wake of woken) wake()
    },
    wait(ms, abort) {
      return new Promise((resolve) => {
        if (abort?.aborted) return resolve()
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
