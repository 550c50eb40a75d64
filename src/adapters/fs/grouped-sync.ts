/**
 * Group commit for fsync: `sync` made durable for every caller, with one run shared by all who
 * ask while none has started. A caller who asks while a run is under way waits for the next one,
 * since the run in progress may have begun before that caller's write; everyone who asks meanwhile
 * shares that next run. So a burst of N writes costs about two fsyncs, not N, and each caller
 * still resolves only after an fsync that began after its own write.
 */
export function groupedSync(sync: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let next: Promise<void> | undefined
  const start = (): Promise<void> => {
    const run = sync().finally(() => {
      if (running === run) running = undefined
    })
    running = run
    return run
  }
  return () => {
    if (next) return next
    if (!running) return start()
    const waitingFor = running
    const queued = waitingFor
      .catch(() => {})
      .then(() => {
        next = undefined
        return start()
      })
    next = queued
    return queued
  }
}
