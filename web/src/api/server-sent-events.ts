/** One server-sent event: its `event` name (`message` when absent), `data` and `id` fields. */
export interface ServerSentEvent {
  event: string
  data: string
  id: string | undefined
}

/**
 * Reads a `text/event-stream` body as the HTML standard says: lines ending in LF, CR or CRLF,
 * `field: value` lines, `:` comments, an event per blank line. Each chunk read counts as a sign
 * of life (`onChunk`), comments included, for the caller's watchdog.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onChunk: () => void,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let pending = ''
  let event = ''
  let data: string[] = []
  let id: string | undefined
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      onChunk()
      pending += decoder.decode(chunk.value, { stream: true })
      const lines = pending.split(/\r\n|\r|\n/)
      // The last piece is a line not yet ended (a CR at the very end may still be followed by its LF).
      pending = lines.pop() ?? ''
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id }
          event = ''
          data = []
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        else if (field === 'id') id = value
      }
    }
  } finally {
    reader.releaseLock()
  }
}
