import type { VaultDatabase } from '../db/database.js'
import type { EventSignal } from './event-signal.js'

/**
 * One look at the event log per interval for every reader of this process that follows it (the
 * open event streams), instead of one each: while anyone follows, the newest event id is read
 * every `intervalMs` and, when it rose (another process published), `signal` wakes them all.
 * Nothing is read while no one follows. A failed read is logged by nobody and tried again at the
 * next interval: readers also wake on this process's own publishes.
 */
export interface EventLogPoll {
  /** Joins the readers; call the answer to leave (the last to leave stops the reads). */
  follow(): () => void
}

export function createEventLogPoll(options: {
  database: Pick<VaultDatabase, 'db'>
  signal: EventSignal
  intervalMs: number
}): EventLogPoll {
  const { database, signal, intervalMs } = options
  let followers = 0
  let timer: ReturnType<typeof setInterval> | null = null
  let newest: number | null = null
  let reading = false
  const look = async () => {
    if (reading) return
    reading = true
    try {
      const row = await database.db
        .selectFrom('events')
        .select((eb) => eb.fn.max('id').as('last'))
        .executeTakeFirst()
      const last = Number(row?.last ?? 0)
      // The first look after a quiet spell wakes the readers too: one may have read just before an event it missed.
      if (newest === null || last !== newest) signal.notify()
      newest = last
    } catch {
      newest = null
    } finally {
      reading = false
    }
  }
  return {
    follow() {
      followers++
      if (!timer) {
        timer = setInterval(() => void look(), intervalMs)
        // Where timers can be unreferenced (Node), an open stream does not keep the process alive.
        ;(timer as { unref?: () => void }).unref?.()
      }
      let left = false
      return () => {
        if (left) return
        left = true
        followers--
        if (followers === 0 && timer) {
          clearInterval(timer)
          timer = null
          newest = null
        }
      }
    },
  }
}
