import { connect } from 'node:net'

/** An answer read off a raw socket: status, lower-cased headers and the body as text. */
export interface RawReply {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Sends `head` and then `body` (bytes or chunks written one after another) over a fresh TCP
 * socket and reads the answer until the server closes or the declared length has arrived.
 * `halfClose` ends the sending side after the body, as a client that stops early does. Fails if
 * the socket errors before any answer (an EPIPE/ECONNRESET the client could not read past).
 */
export function rawRequest(
  baseUrl: string,
  head: string,
  body: Iterable<Uint8Array | string> = [],
  options: { halfClose?: boolean } = {},
): Promise<RawReply> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    const received: Buffer[] = []
    let settled = false
    const finish = (closed = false) => {
      if (settled) return
      const reply = parse(Buffer.concat(received), closed)
      if (!reply) return
      settled = true
      socket.destroy()
      resolve(reply)
    }
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk)
      finish()
    })
    socket.on('end', () => {
      finish(true)
      if (!settled) reject(new Error(`The server closed without a complete answer: ${Buffer.concat(received)}`))
    })
    socket.on('error', (error) => {
      finish()
      if (!settled) reject(error)
    })
    socket.on('connect', async () => {
      const write = (data: Uint8Array | string) =>
        new Promise<void>((done) => {
          // A write error (the server closed first) surfaces as the socket's 'error'.
          if (socket.destroyed || socket.writableEnded) return done()
          socket.write(data, () => done())
        })
      await write(head)
      for (const chunk of body) await write(chunk)
      if (options.halfClose && !socket.destroyed) socket.end()
    })
  })
}

/** The answer once complete: its declared length has arrived, or (with none declared) the server closed. */
function parse(bytes: Buffer, closed: boolean): RawReply | undefined {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = bytes.subarray(end + 4)
  const length =
    headers['content-length'] === undefined ? (closed ? rest.length : Number.NaN) : Number(headers['content-length'])
  if (Number.isNaN(length) || rest.length < length) return undefined
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.subarray(0, length).toString('utf8') }
}

/**
 * A client that sends its whole request before it reads a byte of the answer, as Python's
 * http.client and requests do: the socket is not read (its answer waits in the kernel) until
 * `head` and every chunk of `body` (one every `pauseMs`) are written. Resolves the answer, or
 * rejects with the error the client would see (EPIPE, ECONNRESET) when the server reset the connection.
 */
export function sendThenRead(
  baseUrl: string,
  head: string,
  body: Iterable<Uint8Array | string>,
  pauseMs = 2,
): Promise<RawReply> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    socket.pause()
    const received: Buffer[] = []
    let failed: Error | undefined
    socket.on('error', (error) => {
      failed = error
      reject(error)
    })
    socket.on('connect', async () => {
      const write = (data: Uint8Array | string) =>
        new Promise<void>((done) => socket.write(data, (error) => (error ? reject(error) : done())))
      try {
        await write(head)
        for (const chunk of body) {
          await write(chunk)
          await new Promise((pause) => setTimeout(pause, pauseMs))
        }
      } catch {
        return // rejected with the write's error
      }
      if (failed) return
      socket.on('data', (chunk: Buffer) => received.push(chunk))
      socket.on('end', () => {
        const reply = parse(Buffer.concat(received), true)
        if (reply) resolve(reply)
        else reject(new Error(`The server closed without a complete answer: ${Buffer.concat(received)}`))
        socket.destroy()
      })
      socket.resume()
    })
  })
}
