import { apiBaseUrl } from './base-url'
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events'
import { getAccessToken, refreshSession, sessionStore } from './session'

/** Waits before reconnecting: doubling from 1 s after each failed try, at most 30 s. */
const firstBackoffMs = 1_000
const maxBackoffMs = 30_000
/** The vault writes a keep-alive every 15 s: a stream silent for longer than this is dead, though not closed. */
const silenceMs = 45_000

let connected = false
const listeners = new Set<() => void>()

function setConnected(next: boolean): void {
  if (connected === next) return
  connected = next
  for (const listener of listeners) listener()
}

/** Whether the live event stream is open now, as an external store for `useSyncExternalStore`. */
export const liveEventsStore = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
  getState: (): boolean => connected,
}

/** Settles after `ms`, or at once when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/**
 * Follows `GET /api/v1/events` until `signal` aborts, handing each event to `onEvent`. `fetch`,
 * not `EventSource`, because the stream needs the bearer token. When the stream ends (a restart,
 * a dropped connection, an expired token) it reconnects with the last id seen as `Last-Event-ID`,
 * so nothing published meanwhile is missed; a refused token is refreshed first.
 */
export async function followLiveEvents(signal: AbortSignal, onEvent: (event: ServerSentEvent) => void): Promise<void> {
  let lastEventId: string | undefined
  let backoffMs = firstBackoffMs
  while (!signal.aborted) {
    const attempt = new AbortController()
    const stop = () => attempt.abort()
    signal.addEventListener('abort', stop)
    let watchdog: ReturnType<typeof setTimeout> | undefined
    // Connected once the stream's first lines arrive (it opens with a comment), not with the headers: a
    // proxy that buffers the stream sends those alone, and the pages should go on polling then.
    const stillAlive = () => {
      clearTimeout(watchdog)
      watchdog = setTimeout(stop, silenceMs)
      backoffMs = firstBackoffMs
      setConnected(true)
    }
    try {
      if (sessionStore.getState().status === 'restoring') await refreshSession()
      const token = getAccessToken()
      const answer = await fetch(`${apiBaseUrl}/api/v1/events`, {
        headers: {
          Accept: 'text/event-stream',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}),
        },
        signal: attempt.signal,
      })
      if (answer.status === 401) {
        // An expired access token: a fresh one, then at once again. A refused refresh ends the session.
        if (await refreshSession()) continue
      } else if (answer.ok && answer.body && answer.headers.get('content-type')?.startsWith('text/event-stream')) {
        watchdog = setTimeout(stop, silenceMs)
        for await (const event of readServerSentEvents(answer.body, stillAlive)) {
          if (event.id) lastEventId = event.id
          onEvent(event)
        }
      }
    } catch {
      // A network failure or an abort: reconnect below (or stop, when asked to).
    } finally {
      clearTimeout(watchdog)
      signal.removeEventListener('abort', stop)
      setConnected(false)
    }
    await pause(backoffMs, signal)
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs)
  }
}
