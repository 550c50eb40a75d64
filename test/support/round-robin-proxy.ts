import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`: each request through it goes to the next upstream in turn. */
  url: string
  close(): Promise<void>
}

/**
 * An HTTP reverse proxy on a free loopback port that hands each request to the next of
 * `upstreams` in turn, streaming bodies both ways: the load balancer in front of replicas.
 * A request whose upstream cannot be reached answers 502.
 */
export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  let next = 0
  const server = createServer((incoming, outgoing) => {
    const target = new URL(upstreams[next++ % upstreams.length] as string)
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502)
      outgoing.end()
    })
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
