import type { DispatcherDeps, DispatchPass } from './dispatcher.js'
import { dispatchNext, dispatchTo } from './dispatcher.js'

/** The print queue's dispatcher as a process runs it: a pass every interval, and one at once when woken. */
export interface DispatchLoop {
  /**
   * Tells the loop the queue or a printer changed: a whole pass follows at once (a job queued or
   * released may go to any printer), or, naming a printer that may just have become free (its bed
   * confirmed clear), a pass for that printer alone, beside any whole pass under way.
   */
  wake(printerId?: string): void
  /** Resolves once the passes under way, if any, have ended; no pass starts afterwards. */
  stop(): Promise<void>
}

/**
 * Runs the dispatcher: a whole pass (`dispatchNext`) every `intervalMs` (printers' statuses change
 * without telling the vault, so they are looked at that often) and when woken, one at a time; and a
 * pass for the printers named when woken (`dispatchTo`), one at a time beside it, so a freed printer
 * gets its job without waiting for a whole pass over a large farm. The printer leases keep the two
 * from tending one printer at once; a printer the whole pass held is looked at again once it ends.
 * While no job is open no pass runs and no printer is asked anything, unless a bed is to be cleared
 * by script. A clearing script runs beside the passes; stopping waits for it to settle its run.
 * Every decision is in the database under leases, so any number of processes may run this loop
 * over one database.
 */
export function startDispatchLoop(
  deps: DispatcherDeps,
  options: { intervalMs: number; leaseMs?: number },
): DispatchLoop {
  const passOptions = options.leaseMs ? { leaseMs: options.leaseMs } : undefined
  let stopped = false
  let whole: Promise<void> | null = null
  let wholeAgain = false
  /** Whole passes started so far: tells a targeted pass whether one ran beside it. */
  let wholeStarts = 0
  let targeted: Promise<void> | null = null
  /** Printers to look at in the next targeted pass. */
  const named = new Set<string>()
  /** Printers the whole pass under way held when a targeted pass came to them. */
  const afterWhole = new Set<string>()
  const scripts = new Set<Promise<void>>()

  const anythingToDo = async () => {
    const { db } = deps.database
    const open = await db
      .selectFrom('print_jobs')
      .select('id')
      .where('state', 'in', ['queued', 'dispatching', 'printing'])
      .limit(1)
      .executeTakeFirst()
    if (open) return true
    // A bed to clear by script is cleared after the last job too.
    const toClear = await db
      .selectFrom('printers')
      .select('id')
      .where('bed_clear_by', '=', 'script')
      .where('bed_occupied_since', 'is not', null)
      .where('held_reason', 'is', null)
      .limit(1)
      .executeTakeFirst()
    return toClear !== undefined
  }
  const followScripts = (done: DispatchPass) => {
    for (const { printer_id, settled } of done.scripts) {
      scripts.add(settled)
      // A script that ended lets the bed be confirmed clear at once.
      void settled.finally(() => {
        scripts.delete(settled)
        wake(printer_id)
      })
    }
  }
  const logged = (pass: Promise<void>) =>
    pass.catch((error: Error) => deps.logger.error('print queue pass failed', { error: error.message }))

  const runWhole = () => {
    if (stopped) return
    if (whole) {
      wholeAgain = true
      return
    }
    wholeStarts++
    whole = logged(
      (async () => {
        if (await anythingToDo()) followScripts(await dispatchNext(deps, passOptions))
      })(),
    ).finally(() => {
      whole = null
      for (const id of afterWhole) named.add(id)
      afterWhole.clear()
      runTargeted()
      if (wholeAgain) {
        wholeAgain = false
        runWhole()
      }
    })
  }
  const runTargeted = () => {
    if (stopped || targeted || named.size === 0) return
    const ids = [...named]
    named.clear()
    const wholeBeside = whole !== null ? wholeStarts - 1 : wholeStarts
    targeted = logged(
      (async () => {
        if (!(await anythingToDo())) return
        const done = await dispatchTo(deps, ids, passOptions)
        followScripts(done)
        // A printer this process's whole pass held is looked at again once that pass ends (it may
        // have read the printer before it became free); one another process held, by that process.
        const held = whole ? afterWhole : wholeStarts > wholeBeside ? named : null
        for (const id of done.heldElsewhere) held?.add(id)
      })(),
    ).finally(() => {
      targeted = null
      runTargeted()
    })
  }
  const wake = (printerId?: string) => {
    if (printerId === undefined) return runWhole()
    named.add(printerId)
    runTargeted()
  }

  const timer = setInterval(runWhole, options.intervalMs)
  return {
    wake,
    async stop() {
      stopped = true
      clearInterval(timer)
      await Promise.all([whole, targeted])
      await Promise.all(scripts)
    },
  }
}
