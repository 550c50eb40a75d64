import {
  fraction,
  type PrinterConnection,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterJob,
  type PrinterProvider,
  type PrinterProviderFactory,
  type PrinterStatus,
  type Temperature,
} from '../../../core/printers/provider.js'
import { diagnose, firstAnswer } from '../diagnostics.js'
import {
  createPrinterHttp,
  finiteNumberOrNull,
  type HttpAnswer,
  obj,
  type PrinterHttp,
  parseJsonObject,
  str,
  uploadTimeoutMs,
} from '../http.js'
import { firstLine } from '../state-words.js'
import { statusOrOffline } from '../status-or-offline.js'
import { mapDuet } from './duet-states.js'

/**
 * Duet boards running RepRapFirmware 3, in standalone mode, over the HTTP API Duet Web Control
 * uses (RepRapFirmware's wiki "HTTP requests", Developer-documentation/OpenAPI.yaml, and
 * src/Networking/HttpResponder.cpp):
 * - `GET /rr_connect?password=…&sessionKey=yes` logs in: `{err: 0, sessionKey, apiLevel, boardType}`,
 *   or `err: 1` for a wrong password and `err: 2` when every session is taken. Every other request
 *   carries the key as `X-Session-Key` and answers 401 once the session lapsed (8 s unused).
 * - `GET /rr_model?flags=d99vn` is the whole object model: `state.status`, `job` (`file.fileName`
 *   and `file.size` while printing, `filePosition`, `duration`, `timesLeft`), `heat.heaters` with
 *   `heat.bedHeaters` and `tools[].heaters` naming them, `boards[0]`, `network.name`.
 * - `POST /rr_upload?name=0:/gcodes/<name>` stores the body as it is (`{err: 0}`, `err: 1` failed).
 * - `GET /rr_gcode?gcode=M32 "0:/gcodes/<name>"` queues the start; `GET /rr_reply` then holds the
 *   board's answer, an `Error: …` line when it refused. The controls are G-code the same way: `M25`
 *   pauses, `M24` resumes, and `M0` cancels a paused print (the board refuses it while the print
 *   runs, "Pause the print before attempting to cancel it", so a cancel pauses first, as Duet Web
 *   Control does).
 * A session is kept per printer between calls, as a board has only a few.
 */
export function createDuetProviders(): PrinterProviderFactory {
  const sessions = new Map<string, string>()
  return (connection) => duetPrinter(connection, sessions)
}

const gcodesFolder = '0:/gcodes/'
/** How long a start waits for the board's reply to M32, asking every `replyPollMs`. */
const replyWaitMs = 1000
const replyPollMs = 100

function duetPrinter(connection: PrinterConnection, sessions: Map<string, string>): PrinterProvider {
  const http = createPrinterHttp(connection.address, connection.timeoutMs)
  const password = connection.credentials.password ?? ''
  const sessionName = [connection.id, connection.address, password].join('\0')

  const logIn = async (): Promise<Record<string, unknown>> => {
    const time = new Date().toISOString().slice(0, 19)
    const query = new URLSearchParams({ password, time, sessionKey: 'yes' })
    // Never `http.json`: its errors name the path, and this one carries the password.
    const reply = await http.request('GET', `/rr_connect?${query}`)
    if (reply.status !== 200) throw new PrinterError('protocol', `rr_connect answered HTTP ${reply.status}`)
    const answer = parseJsonObject(reply.text, 'rr_connect')
    if (answer.err === 1)
      throw new PrinterError(
        'auth',
        'the board refused the password (rr_connect err 1); check the password set with M551',
      )
    if (answer.err === 2)
      throw new PrinterError(
        'refused',
        'the board has no free session (rr_connect err 2): too many clients are connected',
      )
    if (answer.err !== 0) throw new PrinterError('protocol', 'rr_connect answered no error code')
    sessions.set(sessionName, String(answer.sessionKey ?? ''))
    return answer
  }

  /** A request in the printer's session: logs in first if there is none, and once more when it lapsed. */
  const inSession = async (
    method: string,
    path: string,
    init: Parameters<PrinterHttp['request']>[2] = {},
  ): Promise<HttpAnswer> => {
    const send = () => http.request(method, path, { ...init, headers: { ...init.headers, ...sessionHeader() } })
    const sessionHeader = (): Record<string, string> => {
      const key = sessions.get(sessionName)
      return key ? { 'X-Session-Key': key } : {}
    }
    if (!sessions.has(sessionName)) await logIn()
    try {
      return await send()
    } catch (error) {
      // A stream cannot be sent twice; its caller logs in before it.
      const replayable = init.body === undefined || typeof init.body === 'string'
      if (!(error instanceof PrinterError && error.kind === 'auth') || !replayable) throw error
      sessions.delete(sessionName)
      await logIn()
      return send()
    }
  }

  const model = async (): Promise<Record<string, unknown>> => {
    const answer = await inSession('GET', '/rr_model?flags=d99vn')
    if (answer.status !== 200) throw new PrinterError('protocol', `rr_model answered HTTP ${answer.status}`)
    return obj(parseJsonObject(answer.text, 'rr_model').result)
  }

  const readStatus = async (): Promise<PrinterStatus> => {
    const result = await model()
    const status = obj(result.state).status
    const mapped = mapDuet(status)
    return {
      ...mapped,
      temperatures: temperaturesOf(result),
      job: jobOf(obj(result.job), mapped.state),
      raw: { status: status ?? null, last_file: obj(result.job).lastFileName ?? null },
    }
  }

  /**
   * Queues one G-code command. The board runs it in its main loop, after the answer: its refusal
   * shows in rr_reply a moment later. Silence for a while is no refusal; a fresh status then tells.
   */
  return {
    status: () => statusOrOffline(readStatus),
    diagnostics(): Promise<PrinterDiagnostics> {
      return diagnose(
        {
          software: 'RepRapFirmware',
          capabilities: {
            upload: true,
            start: true,
            accepted_extensions: ['.gcode', '.g', '.gco'],
            storages: [gcodesFolder],
            live_push: 'none',
          },
        },
        async (diagnostics) => {
          sessions.delete(sessionName)
          const login = await firstAnswer(
            diagnostics,
            logIn,
            password ? 'the password was accepted' : 'no password needed',
          )
          diagnostics.identity.api_version = login.apiLevel === undefined ? null : String(login.apiLevel)
          const result = await model()
          const board = obj((Array.isArray(result.boards) ? result.boards : [])[0])
          diagnostics.identity.software = str(board.firmwareName) ?? 'RepRapFirmware'
          diagnostics.identity.version = str(board.firmwareVersion)
          diagnostics.identity.hostname = str(obj(result.network).name)
          diagnostics.firmware_link = obj(result.state).status !== 'disconnected'
          diagnostics.checks.push({
            name: 'board',
            result: diagnostics.firmware_link ? 'pass' : 'fail',
            detail: `${str(board.name) ?? str(login.boardType) ?? 'a Duet board'} reports ${JSON.stringify(obj(result.state).status ?? 'no state')}`,
          })
        },
        readStatus,
      )
    },
    async upload(file) {
      // The body streams once: a lapsed session is renewed before it, not after.
      sessions.delete(sessionName)
      await logIn()
      const query = new URLSearchParams({
        name: `${gcodesFolder}${file.name}`,
        time: new Date().toISOString().slice(0, 19),
      })
      const answer = await inSession('POST', `/rr_upload?${query}`, {
        body: file.stream,
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.size) },
        timeoutMs: uploadTimeoutMs(connection.timeoutMs),
      })
      if (answer.status !== 200) throw new PrinterError('refused', `the upload answered HTTP ${answer.status}`)
      if (parseJsonObject(answer.text, 'the upload').err !== 0)
        throw new PrinterError('refused', 'the board could not store the file (rr_upload err 1)')
      return { remote_name: file.name, started: false }
    },
    start: (remoteName) => queueGcode(`M32 "${gcodesFolder}${remoteName}"`, 'the start'),
    runGcode: (script) => queueGcode(script, 'the G-code'),
    pause: () => queueGcode('M25', 'the pause'),
    resume: () => queueGcode('M24', 'the resume'),
    async cancel() {
      if (obj((await model()).state).status === 'processing') {
        await queueGcode('M25', 'the cancel')
        const until = Date.now() + connection.timeoutMs
        while (obj((await model()).state).status !== 'paused') {
          if (Date.now() >= until)
            throw new PrinterError('timeout', `the print did not pause within ${connection.timeoutMs} ms`)
          await new Promise((resolve) => setTimeout(resolve, replyPollMs))
        }
      }
      await queueGcode('M0', 'the cancel')
    },
  }

  /**
   * Queues G-code on the board. It runs the queued lines in its main loop, after the answer: a
   * refusal shows in rr_reply a moment later. Silence for a while is no refusal; the caller's next
   * status read looks then.
   */
  async function queueGcode(gcode: string, what: string): Promise<void> {
    const queued = parseJsonObject(
      (await inSession('GET', `/rr_gcode?${new URLSearchParams({ gcode })}`)).text,
      'rr_gcode',
    )
    if (queued.err === 1) throw new PrinterError('refused', `the board did not take ${what} (rr_gcode err 1)`)
    const until = Date.now() + Math.min(replyWaitMs, connection.timeoutMs)
    for (;;) {
      const reply = firstLine((await inSession('GET', '/rr_reply')).text)
      if (reply && /^error/i.test(reply))
        throw new PrinterError('refused', `the board refused ${what} (${reply.slice(0, 200)})`)
      if (reply || Date.now() >= until) return
      await new Promise((resolve) => setTimeout(resolve, replyPollMs))
    }
  }
}

/** The first tool's first heater as the nozzle, the first bed heater as the bed. */
function temperaturesOf(result: Record<string, unknown>): PrinterStatus['temperatures'] {
  const heat = obj(result.heat)
  const heaters = Array.isArray(heat.heaters) ? heat.heaters : []
  const heater = (index: unknown): Temperature | null => {
    if (typeof index !== 'number' || index < 0 || heaters[index] === null || heaters[index] === undefined) return null
    const entry = obj(heaters[index])
    return {
      actual: finiteNumberOrNull(entry.current),
      target: entry.state === 'active' ? finiteNumberOrNull(entry.active) : 0,
    }
  }
  const firstOf = (list: unknown) => (Array.isArray(list) ? list.find((index) => index !== -1) : undefined)
  const tool = obj((Array.isArray(result.tools) ? result.tools : [])[0])
  return { nozzle: heater(firstOf(tool.heaters)), bed: heater(firstOf(heat.bedHeaters)) }
}

/**
 * The job while the board has one. Standalone RepRapFirmware tells a print's end only by its
 * `lastFileName`, not whether it completed or was cancelled, so a job that is over is not shown.
 */
function jobOf(job: Record<string, unknown>, state: PrinterStatus['state']): PrinterJob | null {
  const file = obj(job.file)
  const name = str(file.fileName)
  if (!name || (state !== 'printing' && state !== 'paused' && state !== 'busy')) return null
  const size = finiteNumberOrNull(file.size)
  const position = finiteNumberOrNull(job.filePosition)
  const timesLeft = obj(job.timesLeft)
  return {
    file_name: name.replace(/^0:\/gcodes\//, ''),
    progress: size && position !== null ? fraction(position / size) : null,
    time_left_s: finiteNumberOrNull(timesLeft.slicer) ?? finiteNumberOrNull(timesLeft.file),
    elapsed_s: finiteNumberOrNull(job.duration),
    ended: null,
    run_id: null,
  }
}
