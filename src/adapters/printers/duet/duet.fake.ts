import type { IncomingMessage } from 'node:http'
import { type Answer, type CommonBehaviour, type FakePrinter, settleMs, sleep, startFake } from '../fake-server.fake.js'

/** RepRapFirmware's `state.status` words (RepRap.cpp `GetStatusString`), and DSF's `disconnected`. */
type DuetStatus =
  | 'idle'
  | 'processing'
  | 'paused'
  | 'pausing'
  | 'resuming'
  | 'cancelling'
  | 'simulating'
  | 'busy'
  | 'changingTool'
  | 'starting'
  | 'updating'
  | 'halted'
  | 'off'
  | 'disconnected'

export interface DuetBehaviour extends CommonBehaviour {
  /** The board's status when it is not plainly idle, printing (`processing`) or busy with a command. */
  board?: Exclude<DuetStatus, 'idle' | 'processing'>
  /** Every HTTP session is taken (RepRapFirmware keeps a few): `rr_connect` answers `err: 2`. */
  sessionsFull?: boolean
  /** The object model leaves out `heat` and `tools`, as a board configured without heaters does. */
  noHeaters?: boolean
}

export interface FakeDuet extends FakePrinter<DuetBehaviour> {
  /** Every `rr_connect` seen, with the password it gave. */
  logins: string[]
  /** Ends every session, as 8 s without a request does on the board. */
  expireSessions(): void
}

const json = (value: unknown): Answer => ({ status: 200, json: value })
/** How long after `rr_gcode` answers the board runs the command. */
const gcodeDelayMs = 30

/**
 * A Duet board in standalone mode, answering the `rr_*` HTTP API as RepRapFirmware 3.5 does
 * (src/Networking/HttpResponder.cpp): `rr_connect` checks the password (`err: 1`), runs out of
 * sessions (`err: 2`) and hands out a session key; any other request without a live key answers
 * 401 "Not authorized". `rr_model` reports the object model of `behaviour` and the job in
 * `state.printing`; `rr_upload` stores the body; `rr_gcode` takes `M32 "<path>"` and `rr_reply`
 * says how it went (`Error: …` when it refused, as the board does for a missing file or while a
 * job runs). `runCommand` keeps the board `busy` as a macro does.
 */
export async function fakeDuet(password = ''): Promise<FakeDuet> {
  const sessions = new Set<string>()
  let reply = ''
  let lastFile: string | null = null
  let nextKey = 41_000
  const fake = (await startFake<DuetBehaviour>(
    async (req, url, body, printer) => {
      const board = printer as FakeDuet
      const path = url.pathname
      if (path === '/rr_connect') {
        board.logins.push(url.searchParams.get('password') ?? '')
        if (url.searchParams.get('password') !== password) return json({ err: 1 })
        if (printer.behaviour.sessionsFull) return json({ err: 2 })
        nextKey += 7
        const key = String(nextKey)
        sessions.add(key)
        return json({ err: 0, sessionTimeout: 8000, boardType: 'duet3mb6hc102', apiLevel: 1, sessionKey: Number(key) })
      }
      if (!sessions.has(headerOf(req, 'x-session-key'))) return { status: 401 }
      if (path === '/rr_disconnect') {
        sessions.delete(headerOf(req, 'x-session-key'))
        return json({ err: 0 })
      }
      if (path === '/rr_model') {
        await sleep(printer.behaviour.slowStatusMs ?? 0)
        return json({ key: '', flags: url.searchParams.get('flags') ?? '', result: objectModel(printer, lastFile) })
      }
      if (path === '/rr_upload' && req.method === 'POST') {
        const name = (url.searchParams.get('name') ?? '').replace(/^0:\/gcodes\//, '')
        // The board cannot write over the file it is printing.
        if (!name || name === printer.state.printing) return json({ err: 1 })
        printer.files.set(name, body.length)
        return json({ err: 0 })
      }
      if (path === '/rr_gcode') {
        // As the board: the command runs in its main loop after this answer, and its reply comes then.
        const gcode = url.searchParams.get('gcode') ?? ''
        setTimeout(() => {
          reply = runGcode(printer, gcode, (file) => {
            lastFile = file
          })
        }, gcodeDelayMs)
        return json({ buff: 255 })
      }
      if (path === '/rr_reply') {
        const said = reply
        reply = ''
        return { status: 200, headers: { 'Content-Type': 'text/plain' }, text: said }
      }
      return { status: 404 }
    },
    () => null,
  )) as FakeDuet
  fake.logins = []
  fake.expireSessions = () => sessions.clear()
  return fake
}

const headerOf = (req: IncomingMessage, name: string) => String(req.headers[name] ?? '')

/** The board's status word from the behaviour, the job and a command it runs. */
function statusOf(printer: FakePrinter<DuetBehaviour>): DuetStatus {
  if (printer.behaviour.board) return printer.behaviour.board
  if (printer.state.printing) return 'processing'
  return Date.now() < printer.state.busyUntil ? 'busy' : 'idle'
}

/**
 * `M25` (pause), `M24` (resume) and `M0` (cancel a paused print) as RepRapFirmware 3.5 runs them
 * (src/GCodes/GCodes2.cpp): each passes through its transitional status (`pausing`, `resuming`,
 * `cancelling`) for `controlSettleMs`; the reply is the board's error line when it refuses.
 */
function runControl(printer: FakePrinter<DuetBehaviour>, code: string, ended: (file: string) => void): string {
  const status = statusOf(printer)
  const settle = (during: DuetStatus, after: () => void) => {
    printer.behaviour.board = during as DuetBehaviour['board']
    setTimeout(after, settleMs(printer.behaviour))
    return ''
  }
  if (code === 'M25') {
    if (status !== 'processing') return 'Error: M25: Cannot pause print, because no file is being printed!\n'
    return settle('pausing', () => {
      printer.behaviour.board = 'paused'
    })
  }
  if (code === 'M24') {
    if (status !== 'paused') return 'Error: M24: Cannot print, because no file is selected!\n'
    return settle('resuming', () => {
      printer.behaviour.board = undefined
    })
  }
  if (status === 'processing') return 'Error: M0: Pause the print before attempting to cancel it\n'
  if (status !== 'paused') return ''
  return settle('cancelling', () => {
    printer.behaviour.board = undefined
    if (printer.state.printing) ended(printer.state.printing)
    printer.state.printing = null
  })
}

/** `M32 "0:/gcodes/<name>"` (or a control) as the board runs it: the reply it leaves for `rr_reply`. */
function runGcode(printer: FakePrinter<DuetBehaviour>, gcode: string, ended: (file: string) => void): string {
  if (/^(M25|M24|M0)$/.test(gcode.trim())) return runControl(printer, gcode.trim(), ended)
  const start = /^M32\s+"0:\/gcodes\/(.+)"$/.exec(gcode.trim())
  if (!start) {
    printer.commands.push(...gcode.split('\n').filter((line) => line.trim() !== ''))
    return ''
  }
  const name = start[1]!
  if (printer.behaviour.refuseStart || statusOf(printer) !== 'idle')
    return 'Error: M32: Cannot set file to print, because a file is already being printed\n'
  if (!printer.files.has(name)) return `Error: M32: Could not find file ${name}\n`
  if (printer.behaviour.silentStart) return ''
  if (printer.behaviour.finishAtOnce) ended(name)
  else printer.state.printing = name
  return ''
}

/** The object model (`rr_model?flags=d99vn`'s `result`) a RepRapFirmware 3.5 board on a Duet 3 reports. */
function objectModel(printer: FakePrinter<DuetBehaviour>, lastFile: string | null) {
  const status = statusOf(printer)
  const printing = printer.state.printing
  const size = printing ? (printer.files.get(printing) ?? 0) : 0
  const active = printing !== null
  const heater = (current: number, target: number) => ({
    current,
    active: target,
    standby: 0,
    state: target ? 'active' : 'off',
  })
  return {
    boards: [{ firmwareName: 'RepRapFirmware', firmwareVersion: '3.5.2', name: 'Duet 3 MB6HC', shortName: 'MB6HC' }],
    network: { name: 'duet3' },
    state: { status },
    job: {
      file: printing ? { fileName: `0:/gcodes/${printing}`, size } : { fileName: null, size: 0 },
      filePosition: printing ? (printer.behaviour.heating ? 0 : Math.round(size * 0.3)) : 0,
      duration: printing ? (printer.behaviour.heating ? 35 : 400) : null,
      timesLeft: printing && !printer.behaviour.heating ? { file: 930, filament: 950, slicer: 900 } : {},
      lastFileName: printing ? null : lastFile ? `0:/gcodes/${lastFile}` : null,
    },
    ...(printer.behaviour.noHeaters
      ? {}
      : {
          heat: {
            bedHeaters: printer.behaviour.noBed ? [-1] : [0, -1, -1, -1],
            heaters: [heater(59.8, active ? 60 : 0), heater(214.7, active ? 215 : 0)],
          },
          tools: [{ number: 0, name: 'T0', heaters: [1] }],
        }),
  }
}
