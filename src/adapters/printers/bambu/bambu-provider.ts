import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import {
  type DiagnosticCheck,
  type PrinterConnection,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterProvider,
  type PrinterProviderFactory,
} from '../../../core/printers/provider.js'
import { diagnose, firstAnswer } from '../diagnostics.js'
import { obj, str } from '../http.js'
import { statusOrOffline } from '../status-or-offline.js'
import { type BambuAddress, parseBambuAddress } from './bambu-address.js'
import { withBambuFtp } from './bambu-ftps.js'
import { type BambuSession, openBambuSession } from './bambu-session.js'
import { bambuCommandNotVerified, bambuHmsErrors } from './bambu-states.js'
import { bambuStatus } from './bambu-status.js'
import type { PeerCertificate } from './bambu-tls.js'
import { wrapGcodeIn3mf } from './gcode-3mf.js'

export interface BambuPrinters {
  provider: PrinterProviderFactory
  /** Ends every printer's MQTT session (the app is closing). */
  close(): Promise<void>
}

interface PooledSession {
  session: BambuSession
  openedAt: number
}

/** A session refused its access code is kept (answering at once) this long before trying again. */
const authRetryMs = 30_000

/**
 * Bambu Lab printers in LAN mode (X1, P1, A1, H2 and their kin): status over MQTT over TLS
 * (port 8883), files over FTPS (implicit TLS, port 990), both with user `bblp` and the printer's
 * LAN access code; credentials `serial` and `access_code`. Each printer's MQTT session stays open
 * between status reads (see `BambuSession`) and is closed after `idleMs` unused.
 *
 * A send wraps the G-code into a `.gcode.3mf` (see `gcode-3mf.ts`), stores it at the root of the
 * printer's storage, and starts it with the `project_file` command, as Bambu Studio does (the
 * controls are the `pause`, `resume` and `stop` commands on the same topic); the printer answers
 * each command with `result` and, when it cannot verify a command from another
 * program than Bambu's (Developer Mode off on recent firmware), with an HMS error.
 */
export function createBambuPrinters(options: { idleMs?: number } = {}): BambuPrinters {
  const idleMs = options.idleMs ?? 5 * 60_000
  const sessions = new Map<string, PooledSession>()

  const drop = (key: string) => {
    const pooled = sessions.get(key)
    sessions.delete(key)
    return pooled?.session.close()
  }
  const sweeper = setInterval(() => {
    for (const [key, { session }] of sessions) if (Date.now() - session.lastUsed > idleMs) void drop(key)
  }, 30_000)
  sweeper.unref()

  /** The printer's session, opened when first needed; a changed address or credential opens a new one. */
  const sessionFor = (connection: PrinterConnection, address: BambuAddress, serial: string, accessCode: string) => {
    const secret = createHash('sha256').update(accessCode).digest('hex')
    const key = [connection.id, address.host, address.mqttPort, serial, secret].join('\0')
    for (const other of sessions.keys()) if (other.startsWith(`${connection.id}\0`) && other !== key) void drop(other)
    const pooled = sessions.get(key)
    if (pooled && !(pooled.session.failure?.kind === 'auth' && Date.now() - pooled.openedAt > authRetryMs))
      return pooled.session
    if (pooled) void drop(key)
    const session = openBambuSession({ host: address.host, port: address.mqttPort, serial, accessCode })
    sessions.set(key, { session, openedAt: Date.now() })
    return session
  }

  const provider: PrinterProviderFactory = (connection) => {
    const address = parseBambuAddress(connection.address)
    const { serial, access_code: accessCode } = connection.credentials
    if (typeof address === 'string' || !serial || !accessCode) {
      const problem = new PrinterError(
        'protocol',
        typeof address === 'string' ? `the address ${address}` : 'the serial number or access code is not set',
      )
      return unusable(problem)
    }
    return bambuPrinter(connection, address, serial, accessCode, () =>
      sessionFor(connection, address, serial, accessCode),
    )
  }

  return {
    provider,
    async close() {
      clearInterval(sweeper)
      await Promise.all([...sessions.keys()].map(drop))
    },
  }
}

/** A printer whose registration lacks what reaching it takes: offline, and every call refused. */
function unusable(problem: PrinterError): PrinterProvider {
  return {
    status: () => statusOrOffline(() => Promise.reject(problem)),
    diagnostics: () =>
      diagnose(
        capabilities(),
        () => Promise.reject(problem),
        () => Promise.reject(problem),
      ),
    upload: () => Promise.reject(problem),
    start: () => Promise.reject(problem),
    takesSlicedPackages: true,
  }
}

const capabilities = () => ({
  software: 'Bambu Lab LAN',
  capabilities: {
    upload: true,
    start: true,
    accepted_extensions: ['.gcode', '.gcode.3mf'],
    storages: ['sdcard'],
    live_push: 'mqtt',
  },
})

function bambuPrinter(
  connection: PrinterConnection,
  address: BambuAddress,
  serial: string,
  accessCode: string,
  session: () => BambuSession,
): PrinterProvider {
  const { timeoutMs } = connection
  /** The plate of each sliced package this provider stored, for its start (wrapped G-code is plate 1). */
  const plates = new Map<string, number>()
  const ftp = (silenceMs: number) => ({
    host: address.host,
    port: address.ftpPort,
    serial,
    accessCode,
    timeoutMs: silenceMs,
  })

  /** MQTT: reachable, the access code taken, reports for this serial; then TLS, firmware and Developer Mode. */
  const probeMqtt = async (diagnostics: PrinterDiagnostics, current: BambuSession) => {
    await firstAnswer(
      diagnostics,
      () => current.ready(timeoutMs),
      `the access code was accepted on MQTT port ${address.mqttPort}, and the printer reports as ${serial}`,
    )
    diagnostics.firmware_link = true
    diagnostics.checks.push(tlsCheck(current.certificate, serial))
    const version = await current
      .request('info', { command: 'get_version' }, (message) => versionAnswer(message), timeoutMs)
      .catch(() => null)
    diagnostics.identity.version = version?.firmware ?? null
    diagnostics.identity.hostname = version?.model ?? serial
    diagnostics.checks.push({
      name: 'firmware',
      result: version ? 'pass' : 'warn',
      detail: version
        ? `firmware ${version.firmware ?? 'unknown'}${version.model ? ` on ${version.model}` : ''}`
        : 'the printer did not answer get_version',
    })
    diagnostics.checks.push(developerModeCheck(current.fun))
  }

  const readStatus = async () => {
    const current = session()
    await current.ready(timeoutMs)
    const status = bambuStatus(current.report)
    if (!current.silent) return status
    // The reason tells this apart from a status served stale because its poll was slow.
    const silence = 'the printer has stopped sending reports; this is the last it sent'
    return { ...status, stale: true, reason: status.reason ? `${status.reason}; ${silence}` : silence }
  }

  /** A control of the running print (`pause`, `resume`, `stop`, with an empty `param`), as Bambu Studio sends it. */
  const printCommand = async (command: string, what: string) => {
    const current = session()
    await current.ready(timeoutMs)
    const answer = await current.request('print', { command, param: '' }, commandAnswer(what, command), timeoutMs)
    if (answer !== 'success') throw new PrinterError('refused', answer)
  }

  return {
    status: () => statusOrOffline(readStatus),

    diagnostics(): Promise<PrinterDiagnostics> {
      return diagnose(
        capabilities(),
        async (diagnostics) => {
          const current = session()
          // Storage is checked whatever MQTT answers: a printer may fail on one port and not the other.
          const storage = ftpsCheck(() => withBambuFtp(ftp(Math.max(timeoutMs, 5_000)), (client) => client.pwd()))
          try {
            await probeMqtt(diagnostics, current)
          } finally {
            const { check, refusedAccessCode } = await storage
            diagnostics.checks.push(check)
            if (refusedAccessCode) diagnostics.authenticated = false
          }
        },
        readStatus,
      )
    },

    takesSlicedPackages: true,

    async upload(file) {
      // Stored at the root of the printer's storage, where `ftp://<name>` finds it.
      const store = (stream: Readable, remoteName: string) =>
        withBambuFtp(ftp(Math.max(timeoutMs, 30_000)), (client) => client.uploadFrom(stream, `/${remoteName}`))
      if (file.plate !== undefined) {
        await store(Readable.fromWeb(file.stream as NodeReadableStream<Uint8Array>), file.name)
        plates.set(file.name, file.plate)
        return { remote_name: file.name, started: false }
      }
      const wrapped = await wrapGcodeIn3mf(file.stream)
      const remoteName = `${file.name}.3mf`
      try {
        await store(wrapped.stream(), remoteName)
      } finally {
        await wrapped.discard()
      }
      return { remote_name: remoteName, started: false }
    },

    async start(remoteName) {
      const current = session()
      await current.ready(timeoutMs)
      const command = projectFile(remoteName, plates.get(remoteName) ?? 1, current.report)
      const answer = await current.request('print', command, commandAnswer('start'), timeoutMs)
      if (answer !== 'success') throw new PrinterError('refused', answer)
    },
    pause: () => printCommand('pause', 'pause'),
    resume: () => printCommand('resume', 'resume'),
    cancel: () => printCommand('stop', 'cancel'),
    // `gcode_line`, as Bambu Studio's console and Home Assistant's integration send it: the lines
    // in one `param`, each ended by a newline; the printer answers with `result`.
    async runGcode(script, options) {
      const current = session()
      await current.ready(options.timeoutMs)
      const param = script
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => `${line}\n`)
        .join('')
      const answer = await current.request(
        'print',
        { command: 'gcode_line', param },
        commandAnswer('G-code', 'gcode_line'),
        options.timeoutMs,
      )
      if (answer !== 'success') throw new PrinterError('refused', answer)
    },
  }
}

/**
 * The `project_file` command for a plate of a `.gcode.3mf` at the root of the printer's storage, in
 * the shape Bambu Studio sends (OpenBambuAPI mqtt.md; Bambuddy's capture): no cloud task ids, bed
 * levelling and flow calibration left to the printer (`auto`), no timelapse. `use_ams` follows the
 * printer: with an AMS it feeds from it, without one from the external spool.
 */
function projectFile(remoteName: string, plate: number, report: Record<string, unknown>): Record<string, unknown> {
  const ams = obj(report.ams).ams
  return {
    command: 'project_file',
    param: `Metadata/plate_${plate}.gcode`,
    url: `ftp://${remoteName}`,
    file: remoteName,
    md5: '',
    subtask_name: remoteName,
    project_id: '0',
    profile_id: '0',
    task_id: '0',
    subtask_id: '0',
    bed_type: 'auto',
    timelapse: false,
    bed_leveling: false,
    auto_bed_leveling: 2,
    flow_cali: false,
    extrude_cali_flag: 2,
    vibration_cali: false,
    layer_inspect: false,
    use_ams: Array.isArray(ams) && ams.length > 0,
  }
}

/**
 * The reader of the printer's answer to a `print` command (`project_file` for a start, `pause`,
 * `resume`, `stop`): `success`, or why it refused; undefined for a message that does not answer it.
 */
const commandAnswer =
  (what: string, command = 'project_file') =>
  (message: Record<string, unknown>, sequenceId: string): string | undefined => {
    const print = obj(message.print)
    if (print.command === command && String(print.sequence_id) === sequenceId) {
      if (str(print.result)?.toLowerCase() === 'success') return 'success'
      const reason = str(print.reason) || str(print.result) || 'no reason given'
      return `the printer refused the ${what}: ${reason}`
    }
    if (print.command === 'push_status' && bambuHmsErrors(print.hms).some((e) => e.code === bambuCommandNotVerified))
      return `the printer could not verify the ${what} command (${bambuCommandNotVerified}); turn on LAN Only and Developer Mode on its screen`
    return undefined
  }

function versionAnswer(
  message: Record<string, unknown>,
): { firmware: string | null; model: string | null } | undefined {
  const info = obj(message.info)
  if (info.command !== 'get_version' || !Array.isArray(info.module)) return undefined
  const modules = info.module.map(obj)
  return {
    firmware: str(modules.find((module) => module.name === 'ota')?.sw_ver),
    model: modules.map((module) => str(module.product_name)).find((name) => name) ?? null,
  }
}

function tlsCheck(certificate: PeerCertificate | null, serial: string): DiagnosticCheck {
  if (!certificate) return { name: 'tls', result: 'warn', detail: 'the printer showed no certificate' }
  const names = `certificate for ${certificate.subject ?? 'no name'} issued by ${certificate.issuer ?? 'no name'} (SHA-256 ${certificate.fingerprint256})`
  if (certificate.subject?.toUpperCase() !== serial.toUpperCase())
    return {
      name: 'tls',
      result: 'warn',
      detail: `${names}: it does not name the serial number ${serial}; check the serial, and that this address is the printer`,
    }
  return { name: 'tls', result: 'pass', detail: `${names}; accepted for this address without a public CA` }
}

/** Developer Mode is off when bit 29 of `fun` is set (Bambuddy's reading); older firmware sends no `fun`. */
function developerModeCheck(fun: unknown): DiagnosticCheck {
  const bits = typeof fun === 'number' ? fun : typeof fun === 'string' ? Number.parseInt(fun, 16) : Number.NaN
  if (!Number.isFinite(bits))
    return {
      name: 'developer mode',
      result: 'pass',
      detail: 'not reported by this firmware; older firmware takes commands without it',
    }
  return (bits & 0x2000_0000) === 0
    ? {
        name: 'developer mode',
        result: 'pass',
        detail: 'LAN Only with Developer Mode: the printer takes print commands',
      }
    : {
        name: 'developer mode',
        result: 'warn',
        detail:
          'Developer Mode is off: the printer reports its status but drops print commands from other programs; turn on LAN Only and Developer Mode on its screen',
      }
}

async function ftpsCheck(
  login: () => Promise<unknown>,
): Promise<{ check: DiagnosticCheck; refusedAccessCode: boolean }> {
  try {
    await login()
    return {
      check: { name: 'ftps', result: 'pass', detail: "logged in to the printer's storage over FTPS" },
      refusedAccessCode: false,
    }
  } catch (error) {
    const failure = error instanceof PrinterError ? error : new PrinterError('protocol', 'unexpected answer')
    return {
      check: { name: 'ftps', result: 'fail', detail: failure.message },
      refusedAccessCode: failure.kind === 'auth',
    }
  }
}
