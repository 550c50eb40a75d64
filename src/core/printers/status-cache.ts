import type { Clock } from '../runtime/clock.js'
import { isReady, offlineStatus, type PrinterStatus } from './provider.js'

export interface ObservedStatus extends PrinterStatus {
  ready: boolean
  /** When the poll that read it was asked: the printer was in this state at some moment since. */
  asked_at: string
  observed_at: string
  /** True when the status is older than the cache lifetime (a fresh poll is under way), or the provider says its picture is old. */
  stale: boolean
}

/**
 * The printers' statuses as last polled. One cache belongs to one app's deps (the runtime
 * entry builds it), so two apps in one process never see each other's statuses.
 */
export interface PrinterStatusCache {
  /**
   * The status of printer `id`. `fresh` always polls. Otherwise a status younger than the
   * cache lifetime is served as it is; for an older one a poll starts (one at a time per
   * printer), and when it does not answer within the printer's wait (see `staleWait`) the last status is served
   * marked stale while the poll goes on, so a list never waits long for an unreachable printer.
   */
  read(id: string, poll: () => Promise<PrinterStatus>, options?: { fresh?: boolean }): Promise<ObservedStatus>
  /** Drops what is known of a printer, after it changed or was deleted. */
  forget(id: string): void
}

interface CacheEntry {
  status: PrinterStatus
  /** When the poll that read it was asked (ms): of two polls, the later asked tells the newer state. */
  askedAt: number
  observedAt: number
  /** How long this printer's last answered poll took (offline results aside), in ms. */
  answerMs?: number
  polling?: Promise<CacheEntry>
}

/**
 * How long a read waits for a refresh before showing the last status, marked stale: at least
 * `staleWaitMs`, and twice what the printer's last answer took, up to `staleWaitCapMs`. Hosts
 * differ (Klipper answers status on its 250 ms cycle), and a fixed window marked healthy but
 * slower printers stale on every few polls.
 */
const staleWaitMs = 300
const staleWaitCapMs = 1_500
const staleWait = (entry: CacheEntry) => Math.min(staleWaitCapMs, Math.max(staleWaitMs, 2 * (entry.answerMs ?? 0)))

/** A status cache whose entries live `ttlMs` (`VAULT_PRINTER_STATUS_TTL_MS`). */
export function createPrinterStatusCache(options: { clock: Clock; ttlMs: number }): PrinterStatusCache {
  const { clock, ttlMs } = options
  const entries = new Map<string, CacheEntry>()
  const observe = async (poll: () => Promise<PrinterStatus>, previous?: CacheEntry): Promise<CacheEntry> => {
    const started = clock.now().getTime()
    const status = await poll()
    const observedAt = clock.now().getTime()
    const answerMs = status.state === 'offline' ? previous?.answerMs : observedAt - started
    return { status, askedAt: started, observedAt, answerMs }
  }
  return {
    async read(id, poll, { fresh = false } = {}) {
      const now = clock.now().getTime()
      const cached = entries.get(id)
      const refresh = () => {
        if (cached?.polling) return cached.polling
        const polling = observe(poll, cached).then((entry) => {
          if (entries.get(id) === pending) entries.set(id, entry)
          return entry
        })
        const pending: CacheEntry = cached
          ? { ...cached, polling }
          : { status: offlineStatus('not polled yet'), askedAt: 0, observedAt: 0, polling }
        entries.set(id, pending)
        return polling
      }
      if (fresh) {
        const entry = await observe(poll, cached)
        // A slow poll that answers after a later one must not put back the state before it (a
        // print just started would read as never begun).
        const current = entries.get(id)
        if (!current || current.askedAt <= entry.askedAt) entries.set(id, entry)
        return present(entry, false)
      }
      if (cached && cached.observedAt > 0) {
        if (now - cached.observedAt <= ttlMs) return present(cached, false)
        // Wait briefly for the refresh; a printer slower than that is shown as last seen, stale.
        let timer: ReturnType<typeof setTimeout> | undefined
        const refreshed = await Promise.race([
          refresh(),
          new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), staleWait(cached)))),
        ])
        clearTimeout(timer)
        return refreshed ? present(refreshed, false) : present(cached, true)
      }
      return present(await refresh(), false)
    },
    forget(id) {
      entries.delete(id)
    },
  }
}

function present(entry: CacheEntry, outlived: boolean): ObservedStatus {
  const stale = outlived || entry.status.stale === true
  return {
    ...entry.status,
    ready: isReady(entry.status) && !stale,
    asked_at: new Date(entry.askedAt).toISOString(),
    observed_at: new Date(entry.observedAt).toISOString(),
    stale,
  }
}
