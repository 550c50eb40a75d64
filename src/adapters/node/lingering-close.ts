import { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Http2Bindings, HttpBindings } from '@hono/node-server'

export type FetchHandler = (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>

/** How long, and how much of the unread request body, the connection lingers for after such an answer. */
export const lingerBounds = { maxBytes: 512 * 1024 * 1024, maxMs: 15_000 }

/**
 * Lingering close (as nginx's `lingering_close`) for answers given before the request body has
 * fully arrived: a 413 by `Content-Length`, a 401 for a wrong key, a 507 for a full disk during an
 * upload. Such answers say `Connection: close` and go out at once; Node then closes the socket,
 * and closing it with the client's bytes still unread makes the kernel reset the connection, so a
 * client that sends its whole body before it reads the answer (Python's http.client and requests,
 * most scripts and slicer hooks) gets a broken pipe, never the problem+json. Here the connection
 * instead half-closes after the answer and goes on reading and discarding the body until it ends,
 * or `lingerBounds` are reached; then it closes as before.
 */
export function lingerOnEarlyAnswers(fetch: FetchHandler): FetchHandler {
  return (request, env) => {
    // The adaptor gives GET and HEAD no body, so their answers never close early: they pass
    // straight through, without another async step on the cheapest requests.
    if (request.method === 'GET' || request.method === 'HEAD') return fetch(request, env)
    return answerThenLinger(fetch, request, env)
  }
}

async function answerThenLinger(fetch: FetchHandler, ...[request, env]: Parameters<FetchHandler>): Promise<Response> {
  const response = await fetch(request, env)
  // HTTP/1 only: HTTP/2 ends a stream on its own, and the adaptor does so.
  if (env.incoming instanceof IncomingMessage && !env.incoming.complete && !env.incoming.destroyed) {
    lingerBeforeClosing(env.incoming)
  }
  return response
}

function lingerBeforeClosing(incoming: IncomingMessage): void {
  const socket = incoming.socket as Socket
  let lingering = false
  // Node calls destroySoon once the answer is written, when the connection is not to be kept.
  socket.destroySoon = () => {
    if (lingering) return
    lingering = true
    socket.end()
    let bytes = 0
    const close = () => {
      clearTimeout(timer)
      incoming.off('data', count)
      socket.destroy()
    }
    const count = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes > lingerBounds.maxBytes) close()
    }
    const timer = setTimeout(close, lingerBounds.maxMs)
    timer.unref()
    // The answer is out: whatever still reads the body (the adaptor's web stream, a multipart
    // parser, an upload that stopped at a full disk) has nothing left to do with it, and its
    // backpressure would stop the socket being read. The rest of the body goes nowhere.
    incoming.removeAllListeners('data')
    incoming.on('data', count)
    incoming.once('end', close)
    incoming.once('close', close)
    incoming.resume()
  }
}
