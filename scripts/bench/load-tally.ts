/**
 * What each route met during a phase of the concurrent load benchmark (scripts/bench/concurrent-load.ts):
 * the time of every request, the statuses answered and the requests that got no answer. Plain
 * JSON, so a load process of its own can hand its tallies back on stdout.
 */

import { percentile } from '../campaigns/upload-burst.js'

export interface RouteTally {
  /** Milliseconds from sending each request to the last byte of its answer (answered or not). */
  latenciesMs: number[]
  /** Status → count of the answers. */
  statuses: Record<string, number>
  /** Requests that got no answer (a socket error): the client's error and its cause → count. */
  noAnswer: Record<string, number>
}

/** Route label → its tally. */
export type Tallies = Record<string, RouteTally>

function tallyOf(tallies: Tallies, route: string): RouteTally {
  tallies[route] ??= { latenciesMs: [], statuses: {}, noAnswer: {} }
  return tallies[route]
}

/**
 * Sends one request, reads its answer to the last byte and records it under `route`: the body
 * and status, or undefined when no answer came (recorded with its reason, never thrown).
 */
export async function timedRequest(
  tallies: Tallies,
  route: string,
  url: string,
  init: RequestInit,
): Promise<{ status: number; body: string } | undefined> {
  const tally = tallyOf(tallies, route)
  const started = performance.now()
  try {
    const res = await fetch(url, init)
    const body = await res.text()
    tally.latenciesMs.push(performance.now() - started)
    tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1
    return { status: res.status, body }
  } catch (error) {
    tally.latenciesMs.push(performance.now() - started)
    const reason = `${(error as Error).message}${(error as Error).cause ? `: ${((error as Error).cause as Error).message ?? (error as Error).cause}` : ''}`
    tally.noAnswer[reason] = (tally.noAnswer[reason] ?? 0) + 1
    return undefined
  }
}

/** Adds `from`'s tallies into `into` (the tallies of several load processes of one phase). */
export function mergeTallies(into: Tallies, from: Tallies): Tallies {
  for (const [route, tally] of Object.entries(from)) {
    const target = tallyOf(into, route)
    target.latenciesMs.push(...tally.latenciesMs)
    for (const [status, n] of Object.entries(tally.statuses))
      target.statuses[status] = (target.statuses[status] ?? 0) + n
    for (const [reason, n] of Object.entries(tally.noAnswer))
      target.noAnswer[reason] = (target.noAnswer[reason] ?? 0) + n
  }
  return into
}

export interface RouteSummary {
  route: string
  requests: number
  perSecond: number
  p50: number
  p99: number
  max: number
  /** Answers outside 2xx plus requests that got no answer. */
  errors: number
  /** The statuses and reasons behind `errors`, for the report. */
  errorDetail: string
}

export function summariseTally(route: string, tally: RouteTally, seconds: number): RouteSummary {
  const bad = Object.entries(tally.statuses).filter(([status]) => !status.startsWith('2'))
  const noAnswer = Object.entries(tally.noAnswer)
  return {
    route,
    requests: tally.latenciesMs.length,
    perSecond: tally.latenciesMs.length / seconds,
    p50: percentile(tally.latenciesMs, 50),
    p99: percentile(tally.latenciesMs, 99),
    max: Math.max(0, ...tally.latenciesMs),
    errors: bad.reduce((sum, [, n]) => sum + n, 0) + noAnswer.reduce((sum, [, n]) => sum + n, 0),
    errorDetail: [...bad.map(([status, n]) => `${status} × ${n}`), ...noAnswer.map(([why, n]) => `${why} × ${n}`)].join(
      '; ',
    ),
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0))

/** A Markdown table of `tallies` over a phase of `seconds`, routes in the order given. */
export function routeTable(tallies: Tallies, seconds: number, order: string[]): string[] {
  const routes = [...order.filter((route) => tallies[route]), ...Object.keys(tallies).filter((r) => !order.includes(r))]
  return [
    '| Route | requests | requests/s | p50 ms | p99 ms | max ms | answers | errors |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...routes.map((route) => {
      const row = summariseTally(route, tallies[route]!, seconds)
      return `| ${route} | ${row.requests.toLocaleString('en')} | ${row.perSecond.toFixed(1)} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.max)} | ${Object.entries(
        tallies[route]!.statuses,
      )
        .map(([status, n]) => `${status} × ${n}`)
        .join(', ')} | ${row.errors}${row.errors ? ` (${row.errorDetail})` : ''} |`
    }),
  ]
}
