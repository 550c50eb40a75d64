import {
  fraction,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterProviderFactory,
  type PrinterStatus,
} from '../../../core/printers/provider.js'
import { diagnose, firstAnswer } from '../diagnostics.js'
import { createPrinterHttp, finiteNumberOrNull, obj, parseJsonObject, postMultipart, refusal, str } from '../http.js'
import { jobEnding } from '../state-words.js'
import { statusOrOffline } from '../status-or-offline.js'
import { mapMoonraker, moonrakerJobEndings } from './moonraker-states.js'

const objectsQuery = '/printer/objects/query?webhooks&print_stats&idle_timeout&virtual_sdcard&extruder&heater_bed'

/**
 * Moonraker (Klipper's API server) over its HTTP API. Status from
 * `printer.objects.query` (webhooks, print_stats, idle_timeout, virtual_sdcard, extruder,
 * heater_bed); `idle_timeout` tells a printer running a command from an idle one,
 * `virtual_sdcard.progress` is already 0..1, and the job history names an ended job's run. Uploads go to `server.files.upload` with
 * `print=false`; `printer.print.start` starts; `printer.print.pause`, `resume` and `cancel` run
 * Klipper's PAUSE, RESUME and CANCEL_PRINT, answering once they ran (Klipper answers a PAUSE of a
 * paused print, or a RESUME of one that is not, with a console line and no error, so only a fresh
 * status tells what happened). An API key, when set, goes in `X-Api-Key`.
 */
/** A Klipper heater's temperatures; null for a heater the printer lacks (Klipper answers `{}` for it). */
function heater(object: Record<string, unknown>) {
  const actual = finiteNumberOrNull(object.temperature)
  return actual === null ? null : { actual, target: finiteNumberOrNull(object.target) }
}

/**
 * The command of each line of a script as Klipper reads it: upper case, after any line number,
 * up to the first parameter (`G1`, `EJECT_PARTS`); comments and empty lines have none.
 */
function klipperCommands(script: string): string[] {
  const commands = script.split('\n').map((line) => {
    const code = (line.split(';')[0] ?? '')
      .trim()
      .toUpperCase()
      .replace(/^N\d+\s*/, '')
    const match = /^([A-Z_]+)([^A-Z_]*)/.exec(code)
    return match ? `${match[1]}${match[2]}`.trim() : ''
  })
  return [...new Set(commands.filter(Boolean))]
}

export const createMoonrakerProvider: PrinterProviderFactory = (connection) => {
  const http = createPrinterHttp(connection.address, connection.timeoutMs, { apiKey: connection.credentials.api_key })
  const result = async (method: string, path: string, init?: Parameters<typeof http.json>[2]) =>
    obj((await http.json(method, path, init)).result)

  /**
   * Seconds left of the job, as Mainsail and Fluidd reckon it: the slicer's estimate from
   * Moonraker's file metadata less the time printed so far, which holds through heat-up; without
   * an estimate, extrapolated from file progress once printing has begun.
   */
  const timeLeft = async (fileName: string, printed: number | null, progress: number | null) => {
    const metadata = await result('GET', `/server/files/metadata?filename=${encodeURIComponent(fileName)}`).catch(
      () => ({}) as Record<string, unknown>,
    )
    const estimate = finiteNumberOrNull(metadata.estimated_time)
    if (estimate !== null) return Math.max(0, Math.round(estimate - (printed ?? 0)))
    return progress && progress > 0 && printed ? Math.round((printed / progress) * (1 - progress)) : null
  }

  /**
   * The id Moonraker's job history gives the last run of `fileName` (its newest entry), which
   * tells two runs of one file apart; null without the history component or another file's entry.
   */
  const lastRunId = async (fileName: string) => {
    const history = await result('GET', '/server/history/list?limit=1&order=desc').catch(
      () => ({}) as Record<string, unknown>,
    )
    const newest = obj(Array.isArray(history.jobs) ? history.jobs[0] : null)
    return str(newest.filename) === fileName ? str(newest.job_id) : null
  }

  const readStatus = async (): Promise<PrinterStatus> => {
    const answer = await http.request('GET', objectsQuery)
    if (answer.status === 503 || answer.status === 400 || answer.status === 404) {
      // Moonraker answers this way while Klippy is not connected: 404 until Klippy first connects
      // (the printer endpoints do not exist yet), 503 (or 400 on older versions) once it is lost.
      return {
        state: 'offline',
        reason: 'Moonraker is not connected to Klipper',
        temperatures: { nozzle: null, bed: null },
        job: null,
        raw: { http_status: answer.status },
      }
    }
    if (answer.status !== 200) throw new PrinterError('protocol', `the status query answered HTTP ${answer.status}`)
    const status = obj(obj(parseJsonObject(answer.text, 'the status query').result).status)
    const webhooks = obj(status.webhooks)
    const printStats = obj(status.print_stats)
    const sdcard = obj(status.virtual_sdcard)
    const idleTimeout = obj(status.idle_timeout)
    const mapped = mapMoonraker(webhooks.state, printStats.state, {
      stateMessage: webhooks.state_message,
      jobMessage: printStats.message,
      idleTimeout: idleTimeout.state,
    })
    const extruder = obj(status.extruder)
    const bed = obj(status.heater_bed)
    const progress = fraction(finiteNumberOrNull(sdcard.progress))
    // total_duration counts from the start, heating and homing included; print_duration only from
    // the first extrusion (it reads 0 for the minutes of heat-up).
    const elapsed = finiteNumberOrNull(printStats.total_duration) ?? finiteNumberOrNull(printStats.print_duration)
    const printed = finiteNumberOrNull(printStats.print_duration)
    const active = ['printing', 'paused'].includes(String(printStats.state))
    const fileName = str(printStats.filename)
    const ended = jobEnding(moonrakerJobEndings, printStats.state)
    return {
      ...mapped,
      temperatures: { nozzle: heater(extruder), bed: heater(bed) },
      job: fileName
        ? {
            file_name: fileName,
            progress: active || printStats.state === 'complete' ? progress : null,
            time_left_s: active ? await timeLeft(fileName, printed, progress) : null,
            elapsed_s: elapsed,
            ended,
            run_id: ended ? await lastRunId(fileName) : null,
            filament_used_mm: finiteNumberOrNull(printStats.filament_used),
          }
        : null,
      raw: {
        klippy_state: webhooks.state ?? null,
        print_state: printStats.state ?? null,
        idle_timeout: idleTimeout.state ?? null,
        message: printStats.message ?? null,
      },
    }
  }

  const control = async (verb: 'pause' | 'resume' | 'cancel') => {
    const answer = await http.request('POST', `/printer/print/${verb}`)
    if (answer.status !== 200) throw refusal(`the ${verb} command`, answer)
  }

  return {
    status: () => statusOrOffline(readStatus),
    diagnostics(): Promise<PrinterDiagnostics> {
      return diagnose(
        {
          software: 'Moonraker',
          capabilities: {
            upload: true,
            start: true,
            // What the vault sends (G-code only); Klipper opens these, in lower case.
            accepted_extensions: ['.gcode', '.g', '.gco'],
            storages: ['gcodes'],
            live_push: 'websocket',
          },
        },
        async (diagnostics) => {
          const info = await firstAnswer(
            diagnostics,
            () => result('GET', '/server/info'),
            connection.credentials.api_key ? 'the API key was accepted' : 'no API key needed',
          )
          diagnostics.identity.version = str(info.moonraker_version)
          diagnostics.identity.api_version = str(info.api_version_string)
          diagnostics.firmware_link = info.klippy_state === 'ready'
          diagnostics.checks.push({
            name: 'klippy',
            result: info.klippy_state === 'ready' ? 'pass' : 'fail',
            detail: `Klippy is ${String(info.klippy_state ?? 'unknown')}${info.klippy_connected === false ? ' (not connected)' : ''}`,
          })
          // Sections Moonraker needs in Klipper's config ([virtual_sdcard], [pause_resume], [display_status]).
          const missing = Array.isArray(info.missing_klippy_requirements) ? info.missing_klippy_requirements : []
          diagnostics.checks.push({
            name: 'klipper_config',
            result: missing.length === 0 ? 'pass' : 'fail',
            detail:
              missing.length === 0
                ? "Klipper's config has every section Moonraker needs"
                : `Klipper's config lacks ${missing.map((name) => `[${String(name)}]`).join(', ')}, which Moonraker needs`,
          })
          const printer = await result('GET', '/printer/info').catch(() => ({}) as Record<string, unknown>)
          diagnostics.identity.hostname = str(printer.hostname)
          if (str(printer.software_version))
            diagnostics.checks.push({
              name: 'klipper',
              result: 'pass',
              detail: `Klipper ${String(printer.software_version)}`,
            })
        },
        readStatus,
      )
    },
    async upload(file) {
      const reply = await postMultipart(
        http,
        '/server/files/upload',
        { root: 'gcodes', print: 'false' },
        file,
        connection.timeoutMs,
      )
      const item = obj(reply.item ?? obj(reply.result).item)
      const path = str(item.path)
      if (!path) throw new PrinterError('protocol', 'the upload answer names no stored file')
      return { remote_name: path, started: reply.print_started === true }
    },
    async start(remoteName) {
      const answer = await http.request('POST', `/printer/print/start?filename=${encodeURIComponent(remoteName)}`)
      if (answer.status !== 200) throw refusal('the start command', answer)
    },
    pause: () => control('pause'),
    resume: () => control('resume'),
    cancel: () => control('cancel'),
    // Moonraker answers `printer.gcode.script` once Klipper has run every line; an error Klipper
    // raises (a macro's `action_raise_error`, a move out of range) comes back as a 400. An unknown
    // command is no error to Klipper (it answers `// Unknown command:"…"` on the console and runs
    // the rest), so each line's command is first looked up in the `gcode` object's `commands`.
    async runGcode(script, options) {
      const known = obj(obj(obj((await result('GET', '/printer/objects/query?gcode=commands')).status).gcode).commands)
      const unknown = klipperCommands(script).filter((command) => !(command in known))
      if (Object.keys(known).length > 0 && unknown.length > 0)
        throw new PrinterError('refused', `Klipper has no command ${unknown.join(', ')}`)
      const answer = await http.request('POST', '/printer/gcode/script', {
        body: JSON.stringify({ script }),
        headers: { 'Content-Type': 'application/json' },
        timeoutMs: options.timeoutMs,
      })
      if (answer.status !== 200) throw refusal('the G-code script', answer)
    },
  }
}
