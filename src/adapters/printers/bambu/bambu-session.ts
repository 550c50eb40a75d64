import type { TLSSocket } from 'node:tls'
import type { MqttClient } from 'mqtt'
import { PrinterError } from '../../../core/printers/provider.js'
import { obj } from '../http.js'
import { bambuTls, type PeerCertificate, peerCertificate } from './bambu-tls.js'

/** What a session needs to reach one printer's MQTT broker. */
export interface BambuTarget {
  host: string
  port: number
  serial: string
  accessCode: string
}

/**
 * One MQTT connection to a Bambu printer in LAN mode, kept open between status reads: the
 * printer pushes its state (`device/{serial}/report`), in full on the X1 and only what changed on
 * the P1 and A1, so the state is the merge of every `print.push_status` since a `pushall`, which is
 * asked for on each (re)connect and never more often (it makes a P1P lag). A refused access code
 * ends the session instead of retrying against the printer.
 */
export interface BambuSession {
  /**
   * Waits, at most `timeoutMs`, until the printer's state is known. Throws `PrinterError`: `auth`
   * for a refused access code, `unreachable`, or `timeout`.
   */
  ready(timeoutMs: number): Promise<void>
  /** Connected and sent a full report; false while reconnecting. */
  readonly connected: boolean
  /** The merged `print` report. */
  readonly report: Record<string, unknown>
  /**
   * True when the printer, connected, has missed a few of its reports (see `missedReports`): a
   * connection gone silent without FIN or RST, which MQTT's keepalive notices only after ~45 s.
   */
  readonly silent: boolean
  /** The `fun` field firmware sends beside `print` or inside it (Developer Mode is one of its bits). */
  readonly fun: unknown
  readonly certificate: PeerCertificate | null
  /** Why the session failed, for a status that cannot be read. */
  readonly failure: PrinterError | null
  /**
   * Publishes a command (a `sequence_id` is added) and resolves with the first report for which
   * `answered` returns a value other than undefined; throws `timeout` after `timeoutMs`.
   */
  request<T>(
    kind: string,
    command: Record<string, unknown>,
    answered: (message: Record<string, unknown>, sequenceId: string) => T | undefined,
    timeoutMs: number,
  ): Promise<T>
  /** When the session was last used, in ms since the epoch. */
  lastUsed: number
  close(): Promise<void>
}

const mqttAuthCodes = new Set([4, 5])

/**
 * A printer reports every 1–2 s (temperatures, Wi-Fi signal) even when nothing else changes. The
 * session is silent after this many of its usual gaps (the longest of the last few, at least 1 s)
 * pass without a report.
 */
const missedReports = 3
const reportGapFloorMs = 1000
const arrivalsKept = 8

/** Whether reports arriving at `arrivals` (ms, oldest first) have stopped by `now`. */
function missedFewReports(arrivals: number[], now: number): boolean {
  const last = arrivals.at(-1)
  if (last === undefined) return false
  const gaps = arrivals.slice(1).map((arrival, index) => arrival - (arrivals[index] ?? arrival))
  const usualGap = Math.max(reportGapFloorMs, ...gaps)
  return now - last > missedReports * usualGap
}

/** The MQTT client library, loaded when the first Bambu session opens: most installs have no Bambu printer. */
let mqttLibrary: Promise<typeof import('mqtt')> | undefined
const loadMqtt = () => (mqttLibrary ??= import('mqtt'))

export function openBambuSession(target: BambuTarget): BambuSession {
  const reportTopic = `device/${target.serial}/report`
  const requestTopic = `device/${target.serial}/request`
  const listeners = new Set<(message: Record<string, unknown>) => void>()
  let report: Record<string, unknown> = {}
  let fun: unknown
  let stateKnown = false
  let connected = false
  let failure: PrinterError | null = null
  let certificate: PeerCertificate | null = null
  let sequence = 0
  let arrivals: number[] = []

  const client = loadMqtt().then(({ connect }) => {
    const client: MqttClient = connect({
      protocol: 'mqtts',
      host: target.host,
      port: target.port,
      // Bambu's broker speaks MQTT 3.1.1 and takes the LAN access code as the password of `bblp`.
      protocolVersion: 4,
      username: 'bblp',
      password: target.accessCode,
      clientId: `model-vault-${crypto.randomUUID().slice(0, 8)}`,
      clean: true,
      keepalive: 30,
      reconnectPeriod: 3000,
      connectTimeout: 10_000,
      // A command published while the connection is down must fail, not wait and run on reconnect.
      queueQoSZero: false,
      ...bambuTls(target.serial),
    })

    client.on('connect', () => {
      connected = true
      failure = null
      certificate = peerCertificate(client.stream as TLSSocket) ?? certificate
      client.subscribe(reportTopic, (error, granted) => {
        // The printer's broker serves its own serial's topics only, and drops a client that asks for others.
        if (error || granted?.some((grant) => grant.qos === 128)) {
          failure = new PrinterError('protocol', `the printer refused ${reportTopic}; check its serial number`)
          return
        }
        sequence += 1
        client.publish(
          requestTopic,
          JSON.stringify({
            pushing: { sequence_id: String(sequence), command: 'pushall', version: 1, push_target: 1 },
          }),
        )
      })
    })
    client.on('message', (_topic, payload) => {
      let message: Record<string, unknown>
      try {
        message = obj(JSON.parse(payload.toString('utf8')))
      } catch {
        return
      }
      arrivals = [...arrivals.slice(1 - arrivalsKept), Date.now()]
      const print = obj(message.print)
      // Firmware sends `fun` beside `print` or, in others, inside it.
      if ('fun' in message) fun = message.fun
      else if ('fun' in print) fun = print.fun
      // Command answers come under `print` too (`{command: "project_file", result}`): not state.
      if (print.command === 'push_status') {
        report = { ...report, ...print }
        if ('gcode_state' in report) stateKnown = true
      }
      for (const listener of listeners) listener(message)
    })
    client.on('error', (error: Error & { code?: unknown }) => {
      if (typeof error.code === 'number' && mqttAuthCodes.has(error.code)) {
        failure = new PrinterError(
          'auth',
          "the printer refused the access code (MQTT: not authorized); read it again from the printer's screen: it changes whenever LAN Only or Developer Mode is switched",
        )
        client.end(true)
        return
      }
      const code = typeof error.code === 'string' && /^[A-Z0-9_]+$/.test(error.code) ? ` (${error.code})` : ''
      failure = new PrinterError('unreachable', `the printer could not be reached on MQTT port ${target.port}${code}`)
    })
    client.on('close', () => {
      connected = false
      stateKnown = false
      arrivals = []
    })
    return client
  })

  const session: BambuSession = {
    get connected() {
      return connected && stateKnown
    },
    get report() {
      return report
    },
    get silent() {
      return connected && missedFewReports(arrivals, Date.now())
    },
    get fun() {
      return fun
    },
    get certificate() {
      return certificate
    },
    get failure() {
      return failure
    },
    lastUsed: Date.now(),
    async ready(timeoutMs) {
      session.lastUsed = Date.now()
      const deadline = Date.now() + timeoutMs
      while (!(connected && stateKnown)) {
        // The last attempt's failure stands until a reconnect (every few seconds) clears it.
        if (failure) throw failure
        if (Date.now() >= deadline) {
          throw new PrinterError(
            'timeout',
            connected
              ? `connected, but the printer sent no report within ${timeoutMs} ms; check its serial number`
              : `no answer within ${timeoutMs} ms`,
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    request(kind, command, answered, timeoutMs) {
      session.lastUsed = Date.now()
      if (!connected) return Promise.reject(failure ?? new PrinterError('unreachable', 'not connected to the printer'))
      sequence += 1
      const sequenceId = String(sequence)
      return new Promise((resolve, reject) => {
        const done = () => {
          listeners.delete(listener)
          clearTimeout(timer)
        }
        const listener = (message: Record<string, unknown>) => {
          const value = answered(message, sequenceId)
          if (value === undefined) return
          done()
          resolve(value)
        }
        const timer = setTimeout(() => {
          done()
          reject(new PrinterError('timeout', `no answer within ${timeoutMs} ms`))
        }, timeoutMs)
        listeners.add(listener)
        void client.then((client) =>
          client.publish(requestTopic, JSON.stringify({ [kind]: { sequence_id: sequenceId, ...command } }), (error) => {
            if (!error) return
            done()
            reject(new PrinterError('unreachable', 'the command could not be sent to the printer'))
          }),
        )
      })
    },
    close: async () => {
      await (await client).endAsync(true)
    },
  }
  return session
}
