import { connect, createServer, type Socket } from 'node:net'

export interface ThrottledProxy {
  /** `http://127.0.0.1:<port>`: talk to the upstream through this. */
  endpoint: string
  /** From now on, answers (upstream → client) pass at most `bytesPerSecond`. */
  throttle(bytesPerSecond: number): void
  /** Answers pass at full speed again. */
  release(): void
  close(): Promise<void>
}

/**
 * A TCP proxy on a free loopback port in front of `upstreamPort`, that can slow the upstream's
 * answers down: a slow link to an S3 bucket or a printer, over real sockets, with the test
 * deciding when it is slow.
 */
export async function startThrottledProxy(upstreamPort: number): Promise<ThrottledProxy> {
  let bytesPerSecond = Number.POSITIVE_INFINITY
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk)
      if (Number.isFinite(bytesPerSecond)) {
        upstream.pause()
        setTimeout(() => upstream.resume(), (chunk.length / bytesPerSecond) * 1000)
      }
    })
    upstream.on('end', () => client.end())
  })
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  )
  return {
    endpoint: `http://127.0.0.1:${port}`,
    throttle: (rate) => (bytesPerSecond = rate),
    release: () => (bytesPerSecond = Number.POSITIVE_INFINITY),
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
