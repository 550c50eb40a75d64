/**
 * The browsing clients of the concurrent load benchmark (scripts/bench/concurrent-load.ts), in a
 * process of their own so that uploads, backups and printer polling in the benchmark's process
 * never delay their clocks. Each client visits the library the way the web UI does — first page,
 * a search for a common and for a rare word, a tag filter, the next page through the cursor, one
 * model's detail, the stats — with a think time between requests, until stdin closes; then the
 * process prints its tallies and its own event-loop delay as JSON.
 */

import { spawn } from 'node:child_process'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { seededRandom } from '../seeded-random.js'
import { type Tallies, timedRequest } from './load-tally.js'

/** The page size the web UI asks for. */
const pageSize = 48

interface Visit {
  /** `next_cursor` and the model ids of the latest first page this client saw. */
  cursor: string
  ids: string[]
}

/** The words and tag a visit searches and filters by (the generator's most and least frequent words, a mid tag). */
export interface BrowsingTerms {
  common: string
  rare: string
  tag: string
}

type PathOf = (visit: Visit, terms: BrowsingTerms, random: () => number) => string

/** Each browsing request, in the order a visit makes them: its label and its path. */
export const browsingRoutes: { route: string; path: PathOf }[] = [
  { route: 'GET /models (first page)', path: () => `/api/v1/models?limit=${pageSize}` },
  {
    route: 'GET /models?q= (common word)',
    path: (_, terms) => `/api/v1/models?limit=${pageSize}&q=${encodeURIComponent(terms.common)}`,
  },
  {
    route: 'GET /models?q= (rare word)',
    path: (_, terms) => `/api/v1/models?limit=${pageSize}&q=${encodeURIComponent(terms.rare)}`,
  },
  {
    route: 'GET /models?tag=',
    path: (_, terms) => `/api/v1/models?limit=${pageSize}&tag=${encodeURIComponent(terms.tag)}`,
  },
  {
    route: 'GET /models?cursor= (next page)',
    path: (visit) => `/api/v1/models?limit=${pageSize}&cursor=${encodeURIComponent(visit.cursor)}`,
  },
  {
    route: 'GET /models/{id}',
    path: (visit, _, random) => `/api/v1/models/${visit.ids[Math.floor(random() * visit.ids.length)]}`,
  },
  { route: 'GET /models/stats', path: () => '/api/v1/models/stats' },
]

export interface BrowsingOptions {
  url: string
  authorization: string
  terms: BrowsingTerms
  clients: number
  /** Mean pause between two requests of one client; each pause is drawn from 0.5× to 1.5× of it. 0: none. */
  thinkMs: number
  /** Only these routes (labels of `browsingRoutes`), for a route alone; all of them by default. */
  routes?: string[]
  /**
   * A bare route (scripts/bench/bare-route.ts) asked every 200 ms beside the clients: what the
   * machine alone adds to a request's time (scheduling, loopback), measured in the same phase.
   */
  bareUrl: string
}

/** The label of the bare route's requests in the tallies. */
export const bareRoute = 'bare Hono route (machine baseline, every 200 ms)'

export interface BrowsingResult {
  tallies: Tallies
  /** The load process's own event-loop delay, p99 and max in ms: how late its clocks may read. */
  clientLagMs: { p99: number; max: number }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The cursor and model ids of a first page: `body` when the visit just read one, else one read unmeasured. */
async function readVisit(options: BrowsingOptions, body?: string): Promise<Visit> {
  const page = JSON.parse(
    body ??
      (await fetch(`${options.url}${browsingRoutes[0]!.path({ cursor: '', ids: [] }, options.terms, Math.random)}`, {
        headers: { Authorization: options.authorization },
      }).then((res) => res.text())),
  ) as { items: { id: string }[]; next_cursor: string | null }
  if (!page.next_cursor || page.items.length === 0)
    throw new Error('the first page has no next page: generate a bigger library')
  return { cursor: page.next_cursor, ids: page.items.map((item) => item.id) }
}

/** One client, from the first page it read: visits until `stopped()`. */
async function browse(
  client: number,
  options: BrowsingOptions,
  first: Visit,
  tallies: Tallies,
  stopped: () => boolean,
): Promise<void> {
  const random = seededRandom(1000 + client)
  const routes = browsingRoutes.filter((entry) => !options.routes || options.routes.includes(entry.route))
  const init = { headers: { Authorization: options.authorization } }
  let visit = first
  // Clients start spread over one think time, as users do, not all in the same millisecond.
  await sleep(random() * options.thinkMs)
  while (!stopped()) {
    for (const { route, path } of routes) {
      if (stopped()) return
      const answer = await timedRequest(tallies, route, `${options.url}${path(visit, options.terms, random)}`, init)
      if (route === browsingRoutes[0]!.route && answer?.status === 200) visit = await readVisit(options, answer.body)
      if (options.thinkMs > 0) await sleep(options.thinkMs * (0.5 + random()))
    }
  }
}

/**
 * Runs in the load process: reads each client's first page, prints `ready`, browses until stdin
 * closes, then prints the result on the next line.
 */
async function browsingProcess(options: BrowsingOptions): Promise<void> {
  let stopped = false
  process.stdin.on('close', () => (stopped = true)).resume()
  const firsts = await Promise.all(Array.from({ length: options.clients }, () => readVisit(options)))
  process.stdout.write('ready\n')
  const lag = monitorEventLoopDelay({ resolution: 10 })
  lag.enable()
  const tallies: Tallies = {}
  const probe = async () => {
    while (!stopped) {
      await timedRequest(tallies, bareRoute, options.bareUrl, {})
      await sleep(200)
    }
  }
  await Promise.all([probe(), ...firsts.map((first, client) => browse(client, options, first, tallies, () => stopped))])
  lag.disable()
  const result: BrowsingResult = { tallies, clientLagMs: { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 } }
  process.stdout.write(JSON.stringify(result))
}

/**
 * Starts the browsing clients in a process of their own and resolves once every client has read
 * its first page (starting the process takes seconds on a loaded machine: not part of any phase);
 * `stop()` ends them and resolves with their result.
 */
export async function startBrowsingClients(options: BrowsingOptions): Promise<{ stop(): Promise<BrowsingResult> }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), JSON.stringify(options)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  let out = ''
  let ready: () => void
  const started = new Promise<void>((resolve) => (ready = resolve))
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
    if (out.startsWith('ready\n')) ready()
  })
  const finished = new Promise<BrowsingResult>((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice('ready\n'.length)))
        : reject(new Error(`the browsing clients exited ${code}`)),
    ),
  )
  await Promise.race([started, finished])
  return {
    stop: () => {
      child.stdin.end()
      return finished
    },
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await browsingProcess(JSON.parse(process.argv[2]!))
