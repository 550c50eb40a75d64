import { until } from './until.js'

/** One server-sent event as a client reads it. */
export interface ReceivedEvent {
  id: string | undefined
  event: string | undefined
  data: Record<string, unknown>
}

export interface EventStreamClient {
  status: number
  headers: Headers
  /** Every event received so far, in order. */
  events: ReceivedEvent[]
  /** Every comment line received so far (without the `:`). */
  comments: string[]
  /** Settles when the server has ended the stream (or the client closed it). */
  ended: Promise<void>
  /** Resolves once `count` events have arrived in all; answers them. */
  received(count: number): Promise<ReceivedEvent[]>
  /** Goes away, as a closed browser tab does. */
  close(): void
}

/**
 * Opens `GET /api/v1/events` with fetch over a real socket and parses the `text/event-stream`
 * as it arrives (blocks separated by a blank line; `event:`, `id:`, `data:` fields; `:` comments).
 */
export async function openEventStream(
  baseUrl: string,
  options: { token?: string; headers?: Record<string, string>; query?: string } = {},
): Promise<EventStreamClient> {
  const abort = new AbortController()
  const answer = await fetch(`${baseUrl}/api/v1/events${options.query ?? ''}`, {
    headers: { ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    signal: abort.signal,
  })
  const events: ReceivedEvent[] = []
  const comments: string[] = []
  const reading = (async () => {
    if (!answer.body || !answer.headers.get('content-type')?.startsWith('text/event-stream')) return
    const decoder = new TextDecoder()
    let pending = ''
    const reader = answer.body.getReader()
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      pending += decoder.decode(chunk.value, { stream: true })
      let end = pending.indexOf('\n\n')
      while (end >= 0) {
        const block = pending.slice(0, end)
        pending = pending.slice(end + 2)
        end = pending.indexOf('\n\n')
        const fields: Record<string, string> = {}
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim())
          else {
            const colon = line.indexOf(':')
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '')
          }
        }
        if (fields.data !== undefined)
          events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) as Record<string, unknown> })
      }
    }
  })().catch(() => {})
  return {
    status: answer.status,
    headers: answer.headers,
    events,
    comments,
    ended: reading,
    async received(count) {
      await until(() => events.length >= count, `${count} events arrived (${events.length} so far)`)
      return events.slice(0, count)
    },
    close() {
      abort.abort()
    },
  }
}
