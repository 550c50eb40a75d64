/** Lets at most a fixed number of tasks run at once; the others wait their turn in arrival order. */
export interface Semaphore {
  /** Runs `task` once a slot is free, and frees the slot when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>
}

export function createSemaphore(slots: number): Semaphore {
  let free = slots
  const waiting: (() => void)[] = []
  const release = () => {
    const next = waiting.shift()
    if (next) next()
    else free++
  }
  return {
    async run(task) {
      if (free > 0) free--
      else await new Promise<void>((resolve) => waiting.push(resolve))
      try {
        return await task()
      } finally {
        release()
      }
    },
  }
}
