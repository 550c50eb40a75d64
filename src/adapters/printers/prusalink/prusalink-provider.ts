import {
  fraction,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterProviderFactory,
  type PrinterStatus,
} from '../../../core/printers/provider.js'
import { diagnose, firstAnswer } from '../diagnostics.js'
import { createPrinterHttp, finiteNumberOrNull, obj, parseJsonObject, refusal, str, uploadTimeoutMs } from '../http.js'
import { jobEnding } from '../state-words.js'
import { statusOrOffline } from '../status-or-offline.js'
import { mapPrusaLink, prusalinkJobEndings } from './prusalink-states.js'

/**
 * PrusaLink's v1 API (MK4, MINI, XL, CORE One; Prusa-Link on MK3). Authentication is HTTP
 * Digest with the printer's user name and password, or `X-Api-Key` on older firmware.
 * Status: `GET /api/v1/status` (progress in percent), plus `GET /api/v1/job` for the file
 * name (its `display_name`: Buddy firmware gives the FAT short name, `BOX~1.GCO`, in `name`).
 * Upload: `PUT /api/v1/files/{storage}/{name}` with `Print-After-Upload: ?0`; start:
 * `POST /api/v1/files/{storage}/{name}` (204, or 409 when the printer will not print). Controls name
 * the job by the id `GET /api/v1/status` gives it: `PUT /api/v1/job/{id}/pause`, `PUT
 * /api/v1/job/{id}/resume`, `DELETE /api/v1/job/{id}` (204; 404 for another job's id, 409 when the
 * job's state forbids it).
 */
export const createPrusaLinkProvider: PrinterProviderFactory = (connection) => {
  const { api_key, username, password } = connection.credentials
  const http = createPrinterHttp(connection.address, connection.timeoutMs, {
    apiKey: api_key,
    ...(username && password ? { digest: { username, password } } : {}),
  })
  let storage: string | null = null

  const writableStorage = async (): Promise<string> => {
    if (storage) return storage
    const answer = await http.request('GET', '/api/v1/storage')
    const list = answer.status === 200 ? parseJsonObject(answer.text, 'GET /api/v1/storage').storage_list : null
    const usable = Array.isArray(list)
      ? list.map(obj).find((entry) => entry.available !== false && entry.read_only !== true && str(entry.path))
      : undefined
    storage = str(usable?.path)?.replace(/^\/+|\/+$/g, '') ?? 'usb'
    return storage
  }

  const readStatus = async (): Promise<PrinterStatus> => {
    const status = await http.json('GET', '/api/v1/status')
    const printer = obj(status.printer)
    const jobSummary = status.job ? obj(status.job) : null
    const mapped = mapPrusaLink(printer.state, obj(printer.status_printer))
    let fileName: string | null = null
    if (jobSummary) {
      const answer = await http.request('GET', '/api/v1/job')
      if (answer.status === 200) {
        const file = obj(parseJsonObject(answer.text, 'GET /api/v1/job').file)
        fileName = str(file.display_name) ?? str(file.name)
      }
    }
    return {
      ...mapped,
      temperatures: {
        nozzle:
          'temp_nozzle' in printer
            ? { actual: finiteNumberOrNull(printer.temp_nozzle), target: finiteNumberOrNull(printer.target_nozzle) }
            : null,
        bed:
          'temp_bed' in printer
            ? { actual: finiteNumberOrNull(printer.temp_bed), target: finiteNumberOrNull(printer.target_bed) }
            : null,
      },
      job: jobSummary
        ? {
            file_name: fileName,
            progress: fraction((finiteNumberOrNull(jobSummary.progress) ?? Number.NaN) / 100),
            time_left_s: finiteNumberOrNull(jobSummary.time_remaining),
            elapsed_s: finiteNumberOrNull(jobSummary.time_printing),
            ended: jobEnding(prusalinkJobEndings, printer.state),
            run_id: jobSummary.id === undefined || jobSummary.id === null ? null : String(jobSummary.id),
          }
        : null,
      raw: { state: printer.state ?? null, job_id: jobSummary?.id ?? null },
    }
  }

  /** A control of the job the printer runs now, named by its id: no job, nothing to control. */
  const control = async (verb: string, method: string, suffix: string) => {
    const job = obj((await http.json('GET', '/api/v1/status')).job)
    if (job.id === undefined || job.id === null) throw new PrinterError('refused', `the printer runs no job to ${verb}`)
    const answer = await http.request(method, `/api/v1/job/${encodeURIComponent(String(job.id))}${suffix}`)
    if (answer.status !== 204 && answer.status !== 200) throw refusal(`the ${verb} command`, answer)
  }

  return {
    takesBinaryGcode: true,
    status: () => statusOrOffline(readStatus),
    diagnostics(): Promise<PrinterDiagnostics> {
      return diagnose(
        {
          software: 'PrusaLink',
          capabilities: {
            upload: true,
            start: true,
            accepted_extensions: ['.gcode', '.bgcode'],
            storages: [],
            live_push: 'none',
          },
        },
        async (diagnostics) => {
          const version = await firstAnswer(
            diagnostics,
            () => http.json('GET', '/api/version'),
            username ? 'digest credentials accepted' : 'the API key was accepted',
          )
          diagnostics.identity.software = str(version.text) ?? 'PrusaLink'
          diagnostics.identity.version = str(version.server) ?? str(version.firmware)
          diagnostics.identity.api_version = str(version.api)
          diagnostics.identity.hostname = str(version.hostname)
          diagnostics.capabilities.storages = [await writableStorage()]
          const info = await http.request('GET', '/api/v1/info')
          diagnostics.firmware_link = info.status === 200
          diagnostics.checks.push({
            name: 'printer link',
            result: info.status === 200 ? 'pass' : 'warn',
            detail: `GET /api/v1/info answered HTTP ${info.status}`,
          })
        },
        readStatus,
      )
    },
    async upload(file) {
      const target = `/api/v1/files/${await writableStorage()}/${encodeURIComponent(file.name)}`
      // Digest needs a challenge before a streamed body, which cannot be sent twice.
      if (username && password) await http.request('GET', '/api/version')
      const answer = await http.request('PUT', target, {
        body: file.stream,
        headers: {
          'Content-Type': 'text/x.gcode',
          'Content-Length': String(file.size),
          'Print-After-Upload': '?0',
          Overwrite: '?1',
        },
        timeoutMs: uploadTimeoutMs(connection.timeoutMs),
      })
      if (answer.status !== 201 && answer.status !== 204 && answer.status !== 200) throw refusal('the upload', answer)
      return { remote_name: file.name, started: false }
    },
    pause: () => control('pause', 'PUT', '/pause'),
    resume: () => control('resume', 'PUT', '/resume'),
    cancel: () => control('cancel', 'DELETE', ''),
    async start(remoteName) {
      const answer = await http.request(
        'POST',
        `/api/v1/files/${await writableStorage()}/${encodeURIComponent(remoteName)}`,
      )
      if (answer.status !== 204 && answer.status !== 200) throw refusal('the start command', answer)
    },
  }
}
