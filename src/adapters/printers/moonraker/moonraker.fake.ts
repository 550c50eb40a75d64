import {
  type Answer,
  apiKeyCheck,
  type CommonBehaviour,
  type FakePrinter,
  multipartFile,
  settleMs,
  sleep,
  startFake,
} from '../fake-server.fake.js'

export interface MoonrakerBehaviour extends CommonBehaviour {
  /** The start command answers only after this long (the print begins when it answers). */
  slowStartMs?: number
  /**
   * Moonraker's link to Klippy when it is not `ready`: `never-connected` (Moonraker answers the
   * printer endpoints 404 until Klippy first connects), `lost` (503), or Klippy's own state with its
   * multi-line `state_message`.
   */
  klippy?: 'never-connected' | 'lost' | { state: 'startup' | 'shutdown' | 'error'; message: string }
  /** The last job failed with this `print_stats.message`. */
  jobError?: string
  /** Klipper's config lacks `[virtual_sdcard]` (so there is no print_stats either). */
  noVirtualSdcard?: boolean
  /**
   * Where the job of `state.printing` is, when not printing: `paused` (PAUSE), or ended —
   * `complete` or `cancelled` — which print_stats keeps, with the file name, until the next job.
   */
  jobState?: 'paused' | 'complete' | 'cancelled'
  /** `print_stats.filament_used` (mm) of a job past its heat-up; default 0, as for a print that has fed none. */
  filamentUsedMm?: number
  /**
   * Klipper's config lacks `[pause_resume]`: PAUSE and RESUME are unknown commands, which
   * Moonraker answers 400 with Klipper's error.
   */
  noPauseResume?: boolean
  /** The bed's temperature (°C), heater off, for a test to cool it; unset, the bed holds 60 °C. */
  bedC?: number
  /**
   * Macros Klipper's config defines beyond its own commands: how long each runs, and the error
   * it raises (`action_raise_error`), which Moonraker answers as a 400.
   */
  macros?: Record<string, { ms?: number; error?: string }>
  /** Klippy disconnects while a script runs: Moonraker answers it 503 and the printer is lost. */
  lostMidScript?: boolean
}

/** Some of the commands every Klipper registers, as its `gcode` object lists them. */
const klipperCommands = [
  'G0',
  'G1',
  'G4',
  'G28',
  'G90',
  'G91',
  'G92',
  'M84',
  'M104',
  'M106',
  'M107',
  'M117',
  'M140',
  'M400',
]

/**
 * Moonraker: `{result: …}` envelopes; every print_stats state (standby, printing, paused, complete,
 * cancelled, error); progress 0..1. As the real Klipper does: while it runs a command
 * `idle_timeout.state` is `Printing` with print_stats still `standby`, and a start waits behind the
 * command; `virtual_sdcard` opens only lower-case `.gcode`, `.g` and `.gco` files; a start while a
 * job prints or is paused answers 400 "SD busy"; every start gets an entry in the job history,
 * whose newest entry names the run print_stats shows.
 */
const commandsOf = (behaviour: MoonrakerBehaviour) =>
  Object.fromEntries([...klipperCommands, ...Object.keys(behaviour.macros ?? {})].map((name) => [name, {}]))

/**
 * `printer.gcode.script`, as Klipper runs it: line by line, `idle_timeout` busy meanwhile, and the
 * answer once every line ran. An unknown command only answers `// Unknown command:"…"` on the
 * console and the script goes on (Klipper's `cmd_default`); a macro's error stops it with a 400.
 */
async function runScript(fake: FakePrinter<MoonrakerBehaviour>, body: Buffer): Promise<Answer> {
  const script = String((JSON.parse(body.toString() || '{}') as { script?: unknown }).script ?? '')
  for (const line of script.split('\n')) {
    const command = line.split(';')[0]?.trim().split(/\s+/)[0]?.toUpperCase() ?? ''
    const macro = fake.behaviour.macros?.[command]
    if (!macro) continue
    fake.runCommand(macro.ms ?? 0)
    await sleep(macro.ms ?? 0)
    if (fake.behaviour.lostMidScript) {
      fake.behaviour.klippy = 'lost'
      return { status: 503, json: { error: { code: 503, message: 'Klippy Disconnected' } } }
    }
    if (macro.error) return { status: 400, json: { error: macroError(command, macro.error) } }
  }
  return { status: 200, json: { result: 'ok' } }
}

/**
 * A macro's raised error as Moonraker answered it on loopback with real Klipper: `message`
 * "Unknown" (Tornado refuses the reason as an HTTP reason phrase), the reason only in the traceback.
 */
const macroError = (command: string, error: string) => ({
  code: 400,
  message: 'Unknown',
  traceback: [
    'Traceback (most recent call last):',
    '  File "moonraker/components/klippy_connection.py", line 825, in wait',
    `moonraker.utils.exceptions.ServerError: Error evaluating 'gcode_macro ${command}:gcode': gcode.CommandError: ${error}`,
    '',
    'The above exception was the direct cause of the following exception:',
    '',
    `tornado.web.HTTPError: HTTP 400: Error evaluating 'gcode_macro ${command}:gcode': gcode.CommandError: ${error}`,
    '',
  ].join('\n'),
})

export function fakeMoonraker(apiKey?: string): Promise<FakePrinter<MoonrakerBehaviour>> {
  // Moonraker's job history (a core component): one entry per start, its id six hex digits.
  const history: { job_id: string; filename: string; status: string }[] = []
  return startFake<MoonrakerBehaviour>(
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
        const job = fake.state.printing
        const { jobError, jobState, heating } = fake.behaviour
        const printing = job && !jobState ? job : null
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
                      state: job ? (jobState ?? 'printing') : jobError ? 'error' : 'standby',
                      filename: job ?? '',
                      total_duration: job ? 75 : 0,
                      print_duration: job && !heating ? 60 : 0,
                      filament_used: job && !heating ? (fake.behaviour.filamentUsedMm ?? 0) : 0,
                      message: jobError ?? '',
                    },
                idle_timeout: {
                  state: printing || Date.now() < fake.state.busyUntil ? 'Printing' : 'Ready',
                  printing_time: 0,
                },
                virtual_sdcard: {
                  progress: jobState === 'complete' ? 1 : job && !heating ? 0.25 : 0,
                  is_active: !!printing,
                },
                // A cancel leaves the hotend's target on, as the real Klipper did.
                extruder: { temperature: 210.4, target: jobState === 'complete' ? 0 : 215 },
                heater_bed: fake.behaviour.noBed
                  ? {}
                  : fake.behaviour.bedC !== undefined
                    ? { temperature: fake.behaviour.bedC, target: 0 }
                    : { temperature: 59.8, target: 60 },
                ...(url.searchParams.has('gcode') ? { gcode: { commands: commandsOf(fake.behaviour) } } : {}),
              },
            },
          },
        }
      }
      if (path === '/server/history/list') {
        const limit = Number(url.searchParams.get('limit') ?? 50)
        const jobs = history.slice().reverse().slice(0, limit)
        return { status: 200, json: { result: { count: history.length, jobs } } }
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
        // A job printing or paused holds the virtual SD card.
        if (fake.state.printing && !['complete', 'cancelled'].includes(fake.behaviour.jobState ?? ''))
          return { status: 400, json: { error: { code: 400, message: 'SD busy' } } }
        if (!fake.behaviour.silentStart) {
          const finished = fake.behaviour.finishAtOnce
          fake.behaviour.jobState = finished ? 'complete' : undefined
          fake.state.printing = filename
          const job_id = (history.length + 1).toString(16).toUpperCase().padStart(6, '0')
          history.push({ job_id, filename, status: finished ? 'completed' : 'in_progress' })
          // A new job resets print_stats, a failed last job included.
          fake.behaviour.jobError = undefined
        }
        return { status: 200, json: { result: 'ok' } }
      }
      const control = /^\/printer\/print\/(pause|resume|cancel)$/.exec(path)
      if (control && req.method === 'POST') {
        // Moonraker runs PAUSE, RESUME or CANCEL_PRINT and answers once Klipper ran it (the head
        // parks first). Klipper answers a PAUSE of a paused print, a RESUME of a running one, or
        // either with nothing printing, with a console line, not an error: the answer is `ok` alike.
        const verb = control[1] ?? ''
        if (fake.behaviour.noPauseResume && verb !== 'cancel')
          return { status: 400, json: { error: { code: 400, message: `Unknown command:"${verb.toUpperCase()}"` } } }
        await sleep(settleMs(fake.behaviour))
        const state = fake.state.printing ? (fake.behaviour.jobState ?? 'printing') : 'standby'
        if (verb === 'pause' && state === 'printing') fake.behaviour.jobState = 'paused'
        if (verb === 'resume' && state === 'paused') fake.behaviour.jobState = undefined
        if (verb === 'cancel' && (state === 'printing' || state === 'paused')) {
          fake.behaviour.jobState = 'cancelled'
          const last = history.at(-1)
          if (last) last.status = 'cancelled'
        }
        return { status: 200, json: { result: 'ok' } }
      }
      if (path === '/printer/gcode/script' && req.method === 'POST') return runScript(fake, body)
      return { status: 404, json: { error: { code: 404, message: 'Not Found' } } }
    },
    apiKeyCheck(apiKey, 401, { error: { code: 401, message: 'Unauthorized' } }),
  )
}
