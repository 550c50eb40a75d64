/**
 * Posts oversized bodies to sign-in and to a protected JSON operation of a running service
 * and reports its resident memory (VmRSS) before, at peak and after, with the answers seen.
 *
 *   npx tsx scripts/campaigns/big-bodies.ts <base URL> <service pid> [MiB per body, default 300] [bodies at once, default 4]
 */
import { readFileSync } from 'node:fs'
import { request } from 'node:http'

const [baseUrl, pidArg, mibArg = '300', parallelArg = '4'] = process.argv.slice(2)
if (!baseUrl || !pidArg) throw new Error('usage: big-bodies.ts <base URL> <service pid> [MiB] [parallel]')
const pid = Number(pidArg)
const bodyBytes = Number(mibArg) * 1024 * 1024
const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** Sends `bodyBytes` of JSON-ish bytes (declared or chunked) and resolves with the status, or the error the client saw. */
function post(path: string, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' }
    if (!chunked) headers['Content-Length'] = String(bodyBytes)
    const req = request(`${baseUrl}${path}`, { method: 'POST', headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(String(res.statusCode)))
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    let sent = 0
    const write = () => {
      while (sent < bodyBytes) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', write)
      }
      req.end()
    }
    req.write('{"username":"')
    write()
  })
}

let peak = rssMiB()
const before = peak
const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 20)
const results: Record<string, string[]> = {}
for (const [path, chunked] of [
  ['/api/v1/auth/login', false],
  ['/api/v1/auth/login', true],
  ['/api/v1/collections', true],
] as const) {
  const label = `${path} ${chunked ? 'chunked' : 'Content-Length'}`
  results[label] = await Promise.all(Array.from({ length: Number(parallelArg) }, () => post(path, chunked)))
}
await new Promise((resolve) => setTimeout(resolve, 2000))
clearInterval(sampler)
console.log(
  JSON.stringify(
    {
      mib_per_body: Number(mibArg),
      parallel: Number(parallelArg),
      rss_mib: { before, peak, after: rssMiB() },
      answers: results,
    },
    null,
    1,
  ),
)
