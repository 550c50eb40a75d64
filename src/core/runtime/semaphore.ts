/** Lets at most a fixed number of tasks hold a slot at once; the others wait their turn in arrival order. */
export interface Semaphore {
  /** Runs `task` once a slot is free, and frees the slot when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>
  /** How many tasks hold a slot and how many wait for one (for metrics). */
  load(): { running: number; waiting: number }
}

/**
 * A semaphore of `slots`. With `leaseMs`, a task gives its slot back after that long even if it
 * has not settled (it runs on, outside the bound): a slow task cannot hold the others up for
 * longer than the lease.
 */
export function createSemaphore(slots: number, options: { leaseMs?: number } = {}): Semaphore {
  let free = slots
  const waiting: (() => void)[] = []
  const release = () => {
    const next = waiting.shift()
    if (next) next()
    else free++
  }
  return {
    load: () => ({ running: slots - free, waiting: waiting.length }),
    async run(task) {
      if (free > 0) free--
      else await new Promise<void>((resolve) => waiting.push(resolve))
      let held = true
      const giveBack = () => {
        if (!held) return
        held = false
        release()
      }
      const lease = options.leaseMs === undefined ? undefined : setTimeout(giveBack, options.leaseMs)
      try {
        return await task()
      } finally {
        clearTimeout(lease)
        giveBack()
      }
    },
  }
}
