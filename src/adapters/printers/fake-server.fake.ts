import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The loopback HTTP server under every fake printer. Each host's fake (moonraker.ts, octoprint.ts,
 * prusalink.ts) answers its published HTTP API from its documentation and source, as a state machine
 * whose states the test sets through `behaviour`; this file only serves it and records what came.
 */
export interface FakePrinter<B extends CommonBehaviour = CommonBehaviour> {
  url: string
  /** Every request seen: method, path, headers. */
  requests: { method: string; path: string; headers: Record<string, string | string[] | undefined> }[]
  /** Stored files: name → bytes received. */
  files: Map<string, number>
  /** G-code lines the host took to run outside a print, in order (where its fake keeps them apart from requests). */
  commands: string[]
  /**
   * `printing`: the file of the current (or, where the host keeps it, the last) job. `busyUntil` (ms
   * since the epoch): Moonraker's Klipper runs a console command until then, as `runCommand` starts one.
   */
  state: { printing: string | null; busyUntil: number }
  /** Moonraker: Klipper runs G-code for `ms` (as `G4 P<ms>` through `printer.gcode.script`). */
  runCommand(ms: number): void
  behaviour: B
  /** Told of each request as it arrives, before the fake answers it (a test that watches every start sets it). */
  onRequest?: (request: { method: string; path: string; query: URLSearchParams }) => void
  close(): Promise<void>
}

/** Switches every fake knows. */
export interface CommonBehaviour {
  /** Accept the start command but never print. */
  silentStart?: boolean
  /** Refuse to start, with the host's own refusal. */
  refuseStart?: boolean
  /** Answer everything with this status. */
  status?: number
  /** Answer non-JSON. */
  garbage?: boolean
  /** Never answer. */
  hang?: boolean
  /** Answer nothing until this settles: a host slow for as long as the test wants. */
  answerAfter?: Promise<unknown>
  /** Status answers take this long (Klipper answers object queries on a 250 ms cycle). */
  slowStatusMs?: number
  /** No heated bed: Klipper answers `{}` for `heater_bed`; OctoPrint's printer profile has none. */
  noBed?: boolean
  /**
   * The job has just begun (heating and homing): Klipper's print_duration and progress read 0,
   * OctoPrint's completion is 0 and its time left still null, PrusaLink sends no time_remaining.
   */
  heating?: boolean
  /**
   * A started job runs to its end at once (a job of a few moves): the printer shows it ended, on
   * the host's end screen, before anyone looks.
   */
  finishAtOnce?: boolean
  /**
   * A pause, resume or cancel takes this long to take effect (the head parks, the firmware
   * finishes its move queue): meanwhile the host reports its transitional state, where it has one
   * (OctoPrint Pausing, Resuming, Cancelling; RepRapFirmware pausing, resuming, cancelling); Moonraker
   * answers the command only then. Default 40 ms.
   */
  controlSettleMs?: number
}

/** How long a control takes to take effect on a fake (see `CommonBehaviour.controlSettleMs`). */
export const settleMs = (behaviour: CommonBehaviour) => behaviour.controlSettleMs ?? 40

/** An answer: JSON, or plain `text` (RepRapFirmware's `rr_reply`). */
export type Answer = { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
type Handler<B extends CommonBehaviour> = (
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  fake: FakePrinter<B>,
) => Answer | Promise<Answer>
/** A refusal of the request's credentials, or null to let it through. */
export type Authorize<B extends CommonBehaviour> = (req: IncomingMessage, fake: FakePrinter<B>) => Answer | null

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

export async function startFake<B extends CommonBehaviour>(
  handle: Handler<B>,
  authorize: Authorize<B>,
): Promise<FakePrinter<B>> {
  const fake = {
    requests: [],
    files: new Map(),
    commands: [],
    state: { printing: null, busyUntil: 0 },
    behaviour: {},
    runCommand(ms: number) {
      fake.state.busyUntil = Date.now() + ms
    },
  } as unknown as FakePrinter<B>
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    fake.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers })
    fake.onRequest?.({ method: req.method ?? '', path: url.pathname, query: url.searchParams })
    if (fake.behaviour.hang) return
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      await fake.behaviour.answerAfter
      const answer = authorize(req, fake) ?? (await cannedOrHandled(req, url, Buffer.concat(chunks), fake, handle))
      if (answer === 'garbage')
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>not json')
      if (res.destroyed) return
      res.writeHead(answer.status, {
        ...(answer.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...answer.headers,
      })
      res.end(answer.json !== undefined ? JSON.stringify(answer.json) : answer.text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = () => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  return fake
}

/** The failure switches first (garbage, a fixed status), then the host's own answer. */
function cannedOrHandled<B extends CommonBehaviour>(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  fake: FakePrinter<B>,
  handle: Handler<B>,
): 'garbage' | Answer | Promise<Answer> {
  if (fake.behaviour.garbage) return 'garbage'
  if (fake.behaviour.status) return { status: fake.behaviour.status }
  return handle(req, url, body, fake)
}

/** The file part of a multipart body: its name and size, and the other fields. */
export function multipartFile(
  body: Buffer,
  contentType: string,
): { name: string; size: number; fields: Record<string, string> } {
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!
  const parts = body.toString('latin1').split(`--${boundary}`).slice(1, -1)
  const fields: Record<string, string> = {}
  let file = { name: '', size: 0 }
  for (const part of parts) {
    const [head, ...rest] = part.split('\r\n\r\n')
    const content = rest.join('\r\n\r\n').replace(/\r\n$/, '')
    const name = /name="([^"]+)"/.exec(head!)![1]!
    const filename = /filename="([^"]+)"/.exec(head!)
    if (filename) file = { name: filename[1]!, size: Buffer.byteLength(content, 'latin1') }
    else fields[name] = content
  }
  return { ...file, fields }
}

/** `X-Api-Key` as Moonraker and OctoPrint check it: a wrong or missing key gets `status` and `json`. */
export const apiKeyCheck =
  (key: string | undefined, status: number, json: unknown): Authorize<CommonBehaviour> =>
  (req) =>
    key && req.headers['x-api-key'] !== key ? { status, json } : null
