import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Fake printers speaking the providers' published HTTP APIs on real loopback sockets, written
 * from the documentation (Moonraker's web API, OctoPrint's REST API, PrusaLink's OpenAPI).
 * `behaviour` switches on the failure cases: silent non-start, refusals, garbage, silence.
 */
export interface FakePrinter {
  url: string
  /** Every request seen: method, path, headers. */
  requests: { method: string; path: string; headers: Record<string, string | string[] | undefined> }[]
  /** Stored files: name → bytes received. */
  files: Map<string, number>
  /**
   * `printing`: the file being printed. `busyUntil` (ms since the epoch): Moonraker's Klipper runs
   * a console command until then (homing, `M190`, a macro), as `runCommand` starts one.
   */
  state: { printing: string | null; busyUntil: number }
  /** Moonraker: Klipper runs G-code for `ms` (as `G4 P<ms>` through `printer.gcode.script`). */
  runCommand(ms: number): void
  behaviour: Behaviour
  close(): Promise<void>
}

export interface Behaviour {
  /** Accept the start command but never print. */
  silentStart?: boolean
  /** Refuse to start (409). */
  refuseStart?: boolean
  /** Answer everything with this status. */
  status?: number
  /** Answer non-JSON. */
  garbage?: boolean
  /** Never answer. */
  hang?: boolean
  /** OctoPrint: the upload is stored but not selected. */
  noSelect?: boolean
  /** Moonraker: the start command answers only after this long (the print begins when it answers). */
  slowStartMs?: number
  /**
   * Moonraker's link to Klippy when it is not `ready`: `never-connected` (Moonraker answers the
   * printer endpoints 404 until Klippy first connects), `lost` (503), or Klippy's own state with its
   * multi-line `state_message`.
   */
  klippy?: 'never-connected' | 'lost' | { state: 'startup' | 'shutdown' | 'error'; message: string }
  /** Moonraker: no `[heater_bed]` in Klipper's config (it answers the object as `{}`). */
  noBed?: boolean
  /** Moonraker: the last job failed with this `print_stats.message`. */
  jobError?: string
  /** Moonraker: the job is heating and homing: no extrusion yet, so print_duration and progress read 0. */
  heating?: boolean
  /** Moonraker: status answers take this long (Klipper answers object queries on a 250 ms cycle). */
  slowStatusMs?: number
  /** Moonraker: Klipper's config lacks `[virtual_sdcard]` (so there is no print_stats either). */
  noVirtualSdcard?: boolean
}

type Answer = { status: number; json?: unknown; headers?: Record<string, string> }
type Handler = (req: IncomingMessage, url: URL, body: Buffer, fake: FakePrinter) => Answer | Promise<Answer>

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

async function startFake(
  handle: Handler,
  authorize: (req: IncomingMessage) => { status: number; headers?: Record<string, string> } | null,
): Promise<FakePrinter> {
  const fake = {
    requests: [],
    files: new Map(),
    state: { printing: null, busyUntil: 0 },
    behaviour: {},
    runCommand(ms: number) {
      fake.state.busyUntil = Date.now() + ms
    },
  } as unknown as FakePrinter
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    fake.requests.push({ method: req.method ?? '', path: url.pathname, headers: req.headers })
    if (fake.behaviour.hang) return
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const denied = authorize(req)
      if (denied) {
        res.writeHead(denied.status, denied.headers).end('{"error":"unauthorized"}')
        return
      }
      if (fake.behaviour.garbage)
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>not json')
      if (fake.behaviour.status) return void res.writeHead(fake.behaviour.status).end()
      const answer = await handle(req, url, Buffer.concat(chunks), fake)
      if (res.destroyed) return
      res.writeHead(answer.status, {
        ...(answer.json !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...answer.headers,
      })
      res.end(answer.json !== undefined ? JSON.stringify(answer.json) : undefined)
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

/** The file part of a multipart body: its name and size. */
function multipartFile(
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

const apiKeyCheck = (key: string | undefined, status: number) => (req: IncomingMessage) =>
  key && req.headers['x-api-key'] !== key ? { status } : null

/**
 * Moonraker: `{result: …}` envelopes; print_stats.state standby/printing; progress 0..1. As the real
 * Klipper does: while it runs a command `idle_timeout.state` is `Printing` with print_stats still
 * `standby`, and a start waits behind the command; `virtual_sdcard` opens only lower-case
 * `.gcode`, `.g` and `.gco` files.
 */
export function fakeMoonraker(apiKey?: string): Promise<FakePrinter> {
  return startFake(
    async (req, url, body, fake) => {
      const path = url.pathname
      if (path === '/server/info')
        return {
          status: 200,
          json: {
            result: {
              klippy_connected: true,
              klippy_state: 'ready',
              missing_klippy_requirements: fake.behaviour.noVirtualSdcard ? ['virtual_sdcard'] : [],
              moonraker_version: 'v0.9.3',
              api_version_string: '1.5.0',
            },
          },
        }
      if (path === '/printer/info')
        return { status: 200, json: { result: { state: 'ready', hostname: 'voron', software_version: 'v0.12.0' } } }
      const klippy = fake.behaviour.klippy
      if (path.startsWith('/printer/') && klippy === 'never-connected')
        return { status: 404, json: { error: { code: 404, message: 'Not Found' } } }
      if (path.startsWith('/printer/') && klippy === 'lost')
        return { status: 503, json: { error: { code: 503, message: 'Klippy Disconnected' } } }
      if (path === '/printer/objects/query') {
        await sleep(fake.behaviour.slowStatusMs ?? 0)
        const printing = fake.state.printing
        const jobError = fake.behaviour.jobError
        return {
          status: 200,
          json: {
            result: {
              eventtime: 1,
              status: {
                webhooks:
                  typeof klippy === 'object'
                    ? { state: klippy.state, state_message: klippy.message }
                    : { state: 'ready', state_message: 'Printer is ready' },
                print_stats: fake.behaviour.noVirtualSdcard
                  ? {}
                  : {
                      state: printing ? 'printing' : jobError ? 'error' : 'standby',
                      filename: printing ?? '',
                      total_duration: printing ? 75 : 0,
                      print_duration: printing && !fake.behaviour.heating ? 60 : 0,
                      message: jobError ?? '',
                    },
                idle_timeout: {
                  state: printing || Date.now() < fake.state.busyUntil ? 'Printing' : 'Ready',
                  printing_time: 0,
                },
                virtual_sdcard: { progress: printing && !fake.behaviour.heating ? 0.25 : 0, is_active: !!printing },
                extruder: { temperature: 210.4, target: 215 },
                heater_bed: fake.behaviour.noBed ? {} : { temperature: 59.8, target: 60 },
              },
            },
          },
        }
      }
      if (path === '/server/files/metadata') {
        // Moonraker's metadata of a stored G-code file, with PrusaSlicer's estimate (1 h here).
        const name = url.searchParams.get('filename') ?? ''
        return fake.files.has(name)
          ? { status: 200, json: { result: { filename: name, size: fake.files.get(name), estimated_time: 3600 } } }
          : { status: 404, json: { error: { code: 404, message: `Metadata not available for <${name}>` } } }
      }
      if (path === '/server/files/upload' && req.method === 'POST') {
        const file = multipartFile(body, String(req.headers['content-type']))
        fake.files.set(file.name, file.size)
        const start = file.fields.print === 'true'
        return {
          status: 201,
          json: {
            item: { path: file.name, root: 'gcodes', size: file.size },
            print_started: start && !fake.behaviour.silentStart,
            print_queued: false,
            action: 'create_file',
          },
        }
      }
      if (path === '/printer/print/start' && req.method === 'POST') {
        if (fake.behaviour.refuseStart)
          return { status: 400, json: { error: { code: 400, message: 'Klippy not ready' } } }
        // Klipper runs the start after the G-code before it, and Moonraker answers once it has run.
        await sleep(fake.state.busyUntil - Date.now())
        await sleep(fake.behaviour.slowStartMs ?? 0)
        const filename = url.searchParams.get('filename') ?? ''
        if (!/\.(gcode|g|gco)$/.test(filename))
          return { status: 400, json: { error: { code: 400, message: 'Unable to open file' } } }
        if (!fake.behaviour.silentStart) {
          fake.state.printing = filename
          // A new job resets print_stats, a failed last job included.
          fake.behaviour.jobError = undefined
        }
        return { status: 200, json: { result: 'ok' } }
      }
      return { status: 404, json: { error: { code: 404, message: 'Not Found' } } }
    },
    apiKeyCheck(apiKey, 401),
  )
}

/** OctoPrint: state flags, completion in percent, effectiveSelect/effectivePrint on upload. */
export function fakeOctoPrint(apiKey?: string): Promise<FakePrinter> {
  let selected: string | null = null
  return startFake(
    (req, url, body, fake) => {
      const path = url.pathname
      const printing = fake.state.printing
      if (path === '/api/version')
        return { status: 200, json: { api: '0.1', server: '1.10.2', text: 'OctoPrint 1.10.2' } }
      if (path === '/api/connection')
        return { status: 200, json: { current: { state: 'Operational', port: '/dev/ttyACM0' } } }
      if (path === '/api/printer') {
        return {
          status: 200,
          json: {
            temperature: { tool0: { actual: 214.8, target: 215 }, bed: { actual: 60.1, target: 60 } },
            state: {
              text: printing ? 'Printing' : 'Operational',
              flags: {
                operational: true,
                paused: false,
                printing: !!printing,
                pausing: false,
                cancelling: false,
                sdReady: true,
                error: false,
                ready: !printing,
                closedOrError: false,
              },
            },
          },
        }
      }
      if (path === '/api/job' && req.method === 'GET') {
        return {
          status: 200,
          json: {
            job: { file: { name: printing ?? selected, origin: 'local' }, estimatedPrintTime: 1200 },
            progress: {
              completion: printing ? 42.5 : null,
              printTime: printing ? 510 : null,
              printTimeLeft: printing ? 690 : null,
            },
            state: printing ? 'Printing' : 'Operational',
          },
        }
      }
      if (path === '/api/files/local' && req.method === 'POST') {
        const file = multipartFile(body, String(req.headers['content-type']))
        fake.files.set(file.name, file.size)
        const select = file.fields.select === 'true' && !fake.behaviour.noSelect
        if (select) selected = file.name
        return {
          status: 201,
          json: {
            files: { local: { name: file.name, path: file.name, origin: 'local' } },
            done: true,
            effectiveSelect: select,
            effectivePrint: false,
          },
        }
      }
      if (path === '/api/job' && req.method === 'POST') {
        if (fake.behaviour.refuseStart || printing)
          return { status: 409, json: { error: 'Printer is not operational or already printing' } }
        if (!fake.behaviour.silentStart) fake.state.printing = selected
        return { status: 204 }
      }
      return { status: 404, json: { error: 'Not found' } }
    },
    apiKeyCheck(apiKey, 403),
  )
}

/** PrusaLink v1 with HTTP Digest (realm "Printer API", no qop, as the Buddy firmware answers). */
export function fakePrusaLink(user?: { username: string; password: string }): Promise<FakePrinter> {
  const nonce = createHash('md5').update(String(Math.random())).digest('hex')
  const realm = 'Printer API'
  const authorize = (req: IncomingMessage) => {
    if (!user) return null
    const header = req.headers.authorization ?? ''
    const fields = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const md5 = (v: string) => createHash('md5').update(v).digest('hex')
    const expected = md5(
      `${md5(`${user.username}:${realm}:${user.password}`)}:${nonce}:${md5(`${req.method}:${fields.uri}`)}`,
    )
    if (
      header.startsWith('Digest ') &&
      fields.username === user.username &&
      fields.nonce === nonce &&
      fields.response === expected
    )
      return null
    return { status: 401, headers: { 'WWW-Authenticate': `Digest realm="${realm}", nonce="${nonce}", stale=false` } }
  }
  return startFake((req, url, body, fake) => {
    const path = decodeURIComponent(url.pathname)
    const printing = fake.state.printing
    if (path === '/api/version')
      return {
        status: 200,
        json: { api: '2.0.0', server: '2.1.2', text: 'PrusaLink', hostname: 'mk4', firmware: '6.1.3' },
      }
    if (path === '/api/v1/info')
      return { status: 200, json: { nozzle_diameter: 0.4, hostname: 'mk4', serial: 'SN123' } }
    if (path === '/api/v1/storage')
      return {
        status: 200,
        json: { storage_list: [{ name: 'usb', type: 'USB', path: '/usb/', read_only: false, available: true }] },
      }
    if (path === '/api/v1/status') {
      return {
        status: 200,
        json: {
          printer: {
            state: printing ? 'PRINTING' : 'IDLE',
            temp_nozzle: 214.9,
            target_nozzle: printing ? 215 : 0,
            temp_bed: 59.7,
            target_bed: printing ? 60 : 0,
          },
          ...(printing ? { job: { id: 7, progress: 12, time_remaining: 3000, time_printing: 400 } } : {}),
          storage: { path: '/usb/', name: 'usb', read_only: false },
        },
      }
    }
    if (path === '/api/v1/job') {
      if (!printing) return { status: 204 }
      return {
        status: 200,
        json: {
          id: 7,
          state: 'PRINTING',
          progress: 12,
          time_remaining: 3000,
          time_printing: 400,
          file: { name: printing, display_name: printing, path: '/usb' },
        },
      }
    }
    const file = /^\/api\/v1\/files\/usb\/(.+)$/.exec(path)
    if (file && req.method === 'PUT') {
      fake.files.set(file[1]!, body.length)
      if (req.headers['print-after-upload'] === '?1' && !fake.behaviour.silentStart) fake.state.printing = file[1]!
      return { status: 201 }
    }
    if (file && req.method === 'POST') {
      if (fake.behaviour.refuseStart || !fake.files.has(file[1]!))
        return { status: 409, json: { title: 'Conflict', message: 'Printer is not ready' } }
      if (!fake.behaviour.silentStart) fake.state.printing = file[1]!
      return { status: 204 }
    }
    return { status: 404 }
  }, authorize)
}
