import {
  fraction,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterJob,
  type PrinterProviderFactory,
  type PrinterStatus,
} from '../../../core/printers/provider.js'
import { diagnose, firstAnswer } from '../diagnostics.js'
import { createPrinterHttp, finiteNumberOrNull, obj, parseJsonObject, postMultipart, refusal, str } from '../http.js'
import type { MappedState } from '../state-words.js'
import { statusOrOffline } from '../status-or-offline.js'
import { mapOctoPrintConnection, mapOctoPrintFlags, octoprintNotConnected } from './octoprint-states.js'

/**
 * The job of `GET /api/job`. OctoPrint keeps the selected file, ours included once uploaded, with
 * a null `completion` until it prints: an idle printer shows a job only when one ran to its end,
 * at 100 % when it completed (a cancel or failure stops short). OctoPrint numbers no runs.
 */
function jobOf(answer: Record<string, unknown>, mapped: MappedState): PrinterJob | null {
  const name = str(obj(obj(answer.job).file).name)
  const progress = obj(answer.progress)
  const completion = finiteNumberOrNull(progress.completion)
  if (!name || (mapped.state === 'idle' && completion === null)) return null
  return {
    file_name: name,
    progress: completion === null ? null : fraction(completion / 100),
    time_left_s: finiteNumberOrNull(progress.printTimeLeft),
    elapsed_s: finiteNumberOrNull(progress.printTime),
    ended: mapped.state !== 'idle' ? null : completion === 100 ? 'completed' : 'cancelled',
    run_id: null,
  }
}

/**
 * OctoPrint over its REST API with `X-Api-Key`. Status: `GET /api/printer` (state flags and
 * temperatures; 409 "Printer is not operational" while OctoPrint is not connected to the printer,
 * connecting, or after an error) and `GET /api/job` (always answers: the state text, `error`, and
 * `progress.completion` in percent). Upload: `POST /api/files/local` with `select=true` and
 * `print=false`, checking `effectiveSelect`/`effectivePrint`; start: `POST /api/job`
 * `{command: "start"}`, which prints the selected file. Controls: `POST /api/job` with
 * `{command: "pause", action: "pause" | "resume"}` (never the default `toggle`, which could undo
 * another client's pause) and `{command: "cancel"}`, each 204, or 409 when nothing prints.
 */
export const createOctoPrintProvider: PrinterProviderFactory = (connection) => {
  const http = createPrinterHttp(connection.address, connection.timeoutMs, { apiKey: connection.credentials.api_key })

  const readStatus = async (): Promise<PrinterStatus> => {
    const [printerAnswer, job] = await Promise.all([http.request('GET', '/api/printer'), http.json('GET', '/api/job')])
    if (printerAnswer.status === 409) {
      // Not operational: the state text and error of `GET /api/job` say whether it is closed, connecting or failed.
      const mapped = mapOctoPrintConnection(job.state, job.error) ?? octoprintNotConnected
      return {
        ...mapped,
        temperatures: { nozzle: null, bed: null },
        job: null,
        raw: { job_state: job.state ?? null, error: job.error ?? null },
      }
    }
    if (printerAnswer.status !== 200)
      throw new PrinterError('protocol', `GET /api/printer answered HTTP ${printerAnswer.status}`)
    const printer = parseJsonObject(printerAnswer.text, 'GET /api/printer')
    const state = obj(printer.state)
    const flags = obj(state.flags)
    const mapped = mapOctoPrintFlags(flags, state.text)
    const temperature = obj(printer.temperature)
    const tool = temperature.tool0 ? obj(temperature.tool0) : null
    const bed = temperature.bed ? obj(temperature.bed) : null
    return {
      ...mapped,
      temperatures: {
        nozzle: tool ? { actual: finiteNumberOrNull(tool.actual), target: finiteNumberOrNull(tool.target) } : null,
        bed: bed ? { actual: finiteNumberOrNull(bed.actual), target: finiteNumberOrNull(bed.target) } : null,
      },
      job: jobOf(job, mapped),
      raw: { state_text: state.text ?? null, flags, job_state: job.state ?? null },
    }
  }

  const jobCommand = async (verb: string, body: Record<string, string>) => {
    const answer = await http.request('POST', '/api/job', {
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    })
    if (answer.status !== 204 && answer.status !== 200) throw refusal(`the ${verb} command`, answer)
  }

  return {
    status: () => statusOrOffline(readStatus),
    diagnostics(): Promise<PrinterDiagnostics> {
      return diagnose(
        {
          software: 'OctoPrint',
          capabilities: {
            upload: true,
            start: true,
            accepted_extensions: ['.gcode', '.gco', '.g'],
            storages: ['local'],
            live_push: 'websocket',
          },
        },
        async (diagnostics) => {
          const version = await firstAnswer(
            diagnostics,
            () => http.json('GET', '/api/version'),
            'the API key was accepted',
          )
          diagnostics.identity.version = str(version.server)
          diagnostics.identity.api_version = str(version.api)
          diagnostics.identity.software = str(version.text) ?? 'OctoPrint'
          const link = await http.request('GET', '/api/connection')
          const current = link.status === 200 ? obj(parseJsonObject(link.text, 'GET /api/connection').current) : {}
          diagnostics.firmware_link = current.state ? mapOctoPrintConnection(current.state) === null : null
          diagnostics.checks.push({
            name: 'printer connection',
            result: diagnostics.firmware_link ? 'pass' : 'fail',
            detail: `OctoPrint reports ${JSON.stringify(current.state ?? 'no connection state')}`,
          })
        },
        readStatus,
      )
    },
    async upload(file) {
      const reply = await postMultipart(
        http,
        '/api/files/local',
        { select: 'true', print: 'false' },
        file,
        connection.timeoutMs,
      )
      const stored = obj(obj(reply.files).local)
      const name = str(stored.path) ?? str(stored.name)
      if (!name) throw new PrinterError('protocol', 'the upload answer names no stored file')
      // `start` prints the selected file, so a file OctoPrint did not select must not be started.
      if (reply.effectiveSelect === false)
        throw new PrinterError('refused', `OctoPrint stored ${name} but did not select it (effectiveSelect: false)`)
      return { remote_name: name, started: reply.effectivePrint === true }
    },
    start: () => jobCommand('start', { command: 'start' }),
    pause: () => jobCommand('pause', { command: 'pause', action: 'pause' }),
    resume: () => jobCommand('resume', { command: 'pause', action: 'resume' }),
    cancel: () => jobCommand('cancel', { command: 'cancel' }),
    // OctoPrint queues the lines on its serial link and answers 204 at once (409 while it is not
    // connected to the printer); whether they ran shows in the printer's state afterwards.
    async runGcode(script, options) {
      const answer = await http.request('POST', '/api/printer/command', {
        body: JSON.stringify({ commands: script.split('\n').filter((line) => line.trim() !== '') }),
        headers: { 'Content-Type': 'application/json' },
        timeoutMs: options.timeoutMs,
      })
      if (answer.status !== 204 && answer.status !== 200) throw refusal('the G-code command', answer)
    },
  }
}
