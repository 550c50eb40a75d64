import { fraction, PrinterError, type DiagnosticCheck, type PrinterDiagnostics, type PrinterProviderFactory, type PrinterStatus } from '../../../core/printers/provider.js'
import { mapOctoPrintFlags } from '../../../core/printers/state-mapping.js'
import { createPrinterHttp, multipartBody, num, obj, parseJsonObject, str } from '../http.js'
import { diagnose, statusOrOffline, timed } from '../status-or-offline.js'

/**
 * OctoPrint over its REST API with `X-Api-Key`. Status: `GET /api/printer` (state flags and
 * temperatures; 409 when OctoPrint is not connected to the printer) and `GET /api/job`
 * (`progress.completion` is in percent). Upload: `POST /api/files/local` with `select=true`
 * and `print=false`, checking `effectiveSelect`/`effectivePrint`; start: `POST /api/job`
 * `{command: "start"}`, which prints the selected file.
 */
export const createOctoPrintProvider: PrinterProviderFactory = (connection) => {
  const http = createPrinterHttp(connection.address, connection.timeoutMs, {
    headers: connection.credentials.api_key ? { 'X-Api-Key': connection.credentials.api_key } : {},
  })

  const readStatus = async (): Promise<PrinterStatus> => {
    const [printerAnswer, job] = await Promise.all([http.request('GET', '/api/printer'), http.json('GET', '/api/job')])
    if (printerAnswer.status === 409) {
      return { state: 'offline', reason: 'OctoPrint is not connected to the printer', temperatures: { nozzle: null, bed: null }, job: null, raw: { job_state: job.state ?? null } }
    }
    if (printerAnswer.status !== 200) throw new PrinterError('protocol', `GET /api/printer answered HTTP ${printerAnswer.status}`)
    const printer = parseJsonObject(printerAnswer.text, 'GET /api/printer')
    const state = obj(printer.state)
    const flags = obj(state.flags)
    const mapped = mapOctoPrintFlags(flags)
    const temperature = obj(printer.temperature)
    const tool = temperature.tool0 ? obj(temperature.tool0) : null
    const bed = temperature.bed ? obj(temperature.bed) : null
    const file = obj(obj(job.job).file)
    const progress = obj(job.progress)
    const completion = num(progress.completion)
    return {
      ...mapped,
      temperatures: {
        nozzle: tool ? { actual: num(tool.actual), target: num(tool.target) } : null,
        bed: bed ? { actual: num(bed.actual), target: num(bed.target) } : null,
      },
      job: str(file.name)
        ? { file_name: str(file.name), progress: completion === null ? null : fraction(completion / 100), time_left_s: num(progress.printTimeLeft), elapsed_s: num(progress.printTime) }
        : null,
      raw: { state_text: state.text ?? null, flags, job_state: job.state ?? null },
    }
  }

  return {
    status: () => statusOrOffline(readStatus),
    async diagnostics(): Promise<PrinterDiagnostics> {
      const checks: DiagnosticCheck[] = []
      const diagnostics: PrinterDiagnostics = {
        reachable: false,
        authenticated: null,
        firmware_link: null,
        latency_ms: null,
        identity: { software: 'OctoPrint', version: null, api_version: null, hostname: null },
        capabilities: { upload: true, start: true, accepted_extensions: ['.gcode', '.gco', '.g'], storages: ['local'], live_push: 'websocket' },
        checks,
      }
      return diagnose(
        diagnostics,
        async () => {
          const { value: version, ms } = await timed(() => http.json('GET', '/api/version'))
          diagnostics.reachable = true
          diagnostics.authenticated = true
          diagnostics.latency_ms = ms
          diagnostics.identity.version = str(version.server)
          diagnostics.identity.api_version = str(version.api)
          diagnostics.identity.software = str(version.text) ?? 'OctoPrint'
          checks.push({ name: 'reachable', result: 'pass', detail: `answered in ${ms} ms` })
          checks.push({ name: 'authentication', result: 'pass', detail: 'the API key was accepted' })
          const link = await http.request('GET', '/api/connection')
          const current = link.status === 200 ? obj(parseJsonObject(link.text, 'GET /api/connection').current) : {}
          diagnostics.firmware_link = current.state ? !/closed|offline|error/i.test(String(current.state)) : null
          checks.push({
            name: 'printer connection',
            result: diagnostics.firmware_link ? 'pass' : 'fail',
            detail: `OctoPrint reports ${JSON.stringify(current.state ?? 'no connection state')}`,
          })
        },
        readStatus,
      )
    },
    async upload(file) {
      const { body, headers } = multipartBody({ select: 'true', print: 'false' }, { field: 'file', ...file })
      const answer = await http.request('POST', '/api/files/local', { body, headers, timeoutMs: Math.max(connection.timeoutMs, 600_000) })
      if (answer.status !== 201 && answer.status !== 200) throw new PrinterError('refused', `the upload answered HTTP ${answer.status}`)
      const reply = parseJsonObject(answer.text, 'the upload')
      const stored = obj(obj(reply.files).local)
      const name = str(stored.path) ?? str(stored.name)
      if (!name) throw new PrinterError('protocol', 'the upload answer names no stored file')
      // `start` prints the selected file, so a file OctoPrint did not select must not be started.
      if (reply.effectiveSelect === false) throw new PrinterError('refused', `OctoPrint stored ${name} but did not select it (effectiveSelect: false)`)
      return { remote_name: name, started: reply.effectivePrint === true }
    },
    async start() {
      const answer = await http.request('POST', '/api/job', { body: JSON.stringify({ command: 'start' }), headers: { 'Content-Type': 'application/json' } })
      if (answer.status !== 204 && answer.status !== 200) throw new PrinterError('refused', `the start command answered HTTP ${answer.status}`)
    },
  }
}
