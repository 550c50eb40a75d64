import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer, type Server } from 'node:tls'
import { Aedes, type AuthenticateError } from 'aedes'
import { unzipSync } from 'fflate'
import { FtpSrv } from 'ftp-srv'

/**
 * A Bambu Lab printer in LAN mode on loopback, built from the community's description of its
 * protocol (OpenBambuAPI mqtt.md and ftp.md; what ha-bambulab and Bambuddy handle): an MQTT broker
 * (aedes) behind TLS with a certificate issued to the serial number, user `bblp` with the access
 * code as password (CONNACK 5, not authorized, otherwise); `device/{serial}/report` carries
 * `print.push_status` reports, in full on `pushall` and, as a P1 or A1 does, only what changed
 * otherwise; `device/{serial}/request` takes `pushall`, `get_version` and `project_file`. Its
 * storage is an FTPS server (ftp-srv, implicit TLS) that answers a wrong access code with 530.
 *
 * States are `state.gcode_state` (IDLE, PREPARE, RUNNING, PAUSE, FINISH, FAILED, or any word a
 * test sets) and `state.hms`; a started job goes PREPARE, then RUNNING after `prepareMs`. Between
 * changes it sends a small report every `reportEveryMs`, as the printer does.
 */
export interface BambuBehaviour {
  /** Answer the start with success, and never run it. */
  silentStart?: boolean
  /** Answer the start with `result: "failed"` and this reason. */
  refuseStart?: string
  /** Run the start but never answer it (older firmware). */
  unansweredStart?: boolean
  /** Developer Mode off on recent firmware: `fun` says so, and print commands are dropped with an HMS error. */
  developerModeOff?: boolean
  /** Send `fun` inside `print` instead of beside it, as some firmware does. */
  funInPrint?: boolean
  /** Answer `pushall` this late. */
  slowPushallMs?: number
  /** How long a pause, resume or stop takes to show in `gcode_state`. Default 40 ms. */
  controlSettleMs?: number
  /** How long a started job stays in PREPARE. Default 30 ms. */
  prepareMs?: number
  /** The job fails while it is prepared (a bad plate, a filament check): FAILED with this `print_error`. */
  failWhilePreparing?: number
  /** The period of the small reports the printer sends while nothing changes (a P1 sends one every 1–2 s). Default 1000 ms. */
  reportEveryMs?: number
  /** Publish nothing more and answer nothing, the connection left open: a printer gone without FIN or RST. */
  silent?: boolean
}

export interface FakeBambu {
  /** `bambu://127.0.0.1?mqtt_port=…&ftp_port=…`, as registered. */
  address: string
  serial: string
  accessCode: string
  /** The full `print` report (what `pushall` answers). */
  state: Record<string, unknown>
  behaviour: BambuBehaviour
  /** Every request received, parsed. */
  requests: Record<string, unknown>[]
  /** The G-code lines `gcode_line` commands handed the printer, in order. */
  commands: string[]
  /** MQTT connections and FTP logins tried, with the password they gave. */
  logins: Array<{ via: 'mqtt' | 'ftp'; password: string }>
  /** A stored file's bytes, or null. */
  file(name: string): Buffer | null
  /** Changes the state and publishes only the changed fields, as a P1 does. */
  report(changes: Record<string, unknown>): void
  /** Drops every MQTT connection, as a printer that reboots or leaves the network. */
  dropConnections(): void
  close(): Promise<void>
}

const idleReport = (): Record<string, unknown> => ({
  gcode_state: 'IDLE',
  gcode_file: '',
  subtask_name: '',
  mc_percent: 0,
  mc_remaining_time: 0,
  mc_print_stage: '1',
  layer_num: 0,
  total_layer_num: 0,
  print_error: 0,
  hms: [],
  nozzle_temper: 24.5,
  nozzle_target_temper: 0,
  bed_temper: 23.9,
  bed_target_temper: 0,
  chamber_temper: 24,
  wifi_signal: '-45dBm',
  sdcard: true,
  ams: { ams: [], ams_exist_bits: '0', tray_now: '255', version: 1 },
  ipcam: { ipcam_dev: '1', ipcam_record: 'disable', timelapse: 'disable' },
})

/** A certificate issued to `serial`, as the printer's own is (made with openssl, once per fake). */
function certificateFor(serial: string, dir: string): { key: Buffer; cert: Buffer } {
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')]
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${serial}`,
    ]),
    { stdio: 'ignore' },
  )
  return { key: readFileSync(key), cert: readFileSync(cert) }
}

/** ftp-srv logs through bunyan; the fake stays quiet. */
const quietLog = {
  child: () => quietLog,
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
}

const notAuthorized = (): AuthenticateError => Object.assign(new Error('not authorized'), { returnCode: 5 as const })

export async function fakeBambu(
  options: { serial?: string; accessCode?: string; certificateName?: string } = {},
): Promise<FakeBambu> {
  const serial = options.serial ?? '01S00C123456789'
  const accessCode = options.accessCode ?? '12345678'
  const dir = mkdtempSync(join(tmpdir(), 'fake-bambu-'))
  const storage = join(dir, 'sdcard')
  mkdirSync(storage)
  const tls = certificateFor(options.certificateName ?? serial, dir)
  const reportTopic = `device/${serial}/report`
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const later = (ms: number, work: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      work()
    }, ms)
    timers.add(timer)
  }

  const broker = await Aedes.createBroker()
  const fake: FakeBambu = {
    address: '',
    serial,
    accessCode,
    state: idleReport(),
    behaviour: {},
    requests: [],
    commands: [],
    logins: [],
    file(name) {
      const path = join(storage, name)
      return existsSync(path) ? readFileSync(path) : null
    },
    report(changes) {
      Object.assign(fake.state, changes)
      publish({ print: { ...changes, command: 'push_status', msg: 1, sequence_id: '0' } })
    },
    dropConnections() {
      // aedes keeps its connected clients in `clients`, which its types leave out.
      const { clients } = broker as unknown as { clients: Record<string, { close(): void }> }
      for (const client of Object.values(clients)) client.close()
    },
    close: async () => {},
  }
  const publish = (message: Record<string, unknown>) =>
    fake.behaviour.silent ||
    broker.publish(
      {
        cmd: 'publish',
        topic: reportTopic,
        payload: Buffer.from(JSON.stringify(message)),
        qos: 0,
        retain: false,
        dup: false,
      },
      () => {},
    )

  broker.authenticate = (_client, username, password, done) => {
    fake.logins.push({ via: 'mqtt', password: password?.toString() ?? '' })
    if (username === 'bblp' && password?.toString() === accessCode) return done(null, true)
    done(notAuthorized(), false)
  }
  // The printer's broker serves its own topics only.
  broker.authorizeSubscribe = (_client, subscription, done) =>
    done(subscription.topic === reportTopic ? null : new Error('not this printer'), subscription)
  broker.on('publish', (packet, client) => {
    if (!client || packet.topic !== `device/${serial}/request`) return
    let message: Record<string, Record<string, unknown>>
    try {
      message = JSON.parse(packet.payload.toString())
    } catch {
      return
    }
    fake.requests.push(message)
    handle(message)
  })

  /** The `fun` bits beside `print`, or inside it as some firmware sends them. */
  const withFun = (print: Record<string, unknown>) => {
    const fun = fake.behaviour.developerModeOff ? '2000C1FF' : '0000C1FF'
    return fake.behaviour.funInPrint ? { print: { ...print, fun } } : { print, fun }
  }

  const handle = (message: Record<string, Record<string, unknown>>) => {
    const { behaviour } = fake
    const command = message.pushing ?? message.info ?? message.print ?? {}
    const sequenceId = command.sequence_id
    if (command.command === 'pushall')
      return later(behaviour.slowPushallMs ?? 0, () =>
        publish(withFun({ ...fake.state, command: 'push_status', msg: 0, sequence_id: sequenceId })),
      )
    if (command.command === 'get_version')
      return publish({
        info: {
          command: 'get_version',
          sequence_id: sequenceId,
          module: [
            { name: 'ota', sw_ver: '01.08.02.00', hw_ver: '', sn: '' },
            { name: 'mc', sw_ver: '00.00.10.48', hw_ver: 'MC07', sn: serial, product_name: 'Bambu Lab P1S' },
          ],
        },
      })
    if (command.command === 'project_file') return startJob(command)
    if (command.command === 'gcode_line') return gcodeLine(command)
    if (['pause', 'resume', 'stop'].includes(String(command.command))) return control(command)
  }

  /**
   * `pause`, `resume` and `stop` as the printer takes them: each answered with `result`, refused
   * (`failed`) when the state does not allow it; a stop leaves FAILED, as a stop at the printer does.
   */
  const control = (command: Record<string, unknown>) => {
    const state = String(fake.state.gcode_state)
    const allowed = { pause: ['RUNNING', 'PREPARE'], resume: ['PAUSE'], stop: ['RUNNING', 'PREPARE', 'PAUSE'] }[
      String(command.command) as 'pause' | 'resume' | 'stop'
    ]
    if (!allowed.includes(state)) return answerStart(command, 'failed', `the printer is ${state}`)
    answerStart(command, 'success')
    const next = { pause: 'PAUSE', resume: 'RUNNING', stop: 'FAILED' }[String(command.command) as 'pause']
    later(fake.behaviour.controlSettleMs ?? 40, () => fake.report({ gcode_state: next, print_error: 0 }))
  }

  /** A print command dropped for want of Developer Mode: the HMS error 0500-0500-0001-0007 says so. */
  const dropUnverified = () => fake.report({ hms: [{ attr: 0x05000500, code: 0x00010007 }] })

  /**
   * `gcode_line`: the lines of `param` (each ended by a newline) run on the printer, answered with
   * `result`; dropped with an HMS error, like every print command, when Developer Mode is off.
   */
  const gcodeLine = (command: Record<string, unknown>) => {
    if (fake.behaviour.developerModeOff) return dropUnverified()
    fake.commands.push(
      ...String(command.param ?? '')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    )
    answerStart(command, 'success')
  }

  const answerStart = (command: Record<string, unknown>, result: string, reason?: string) =>
    publish({ print: { ...command, result, ...(reason ? { reason } : {}) } })

  const startJob = (command: Record<string, unknown>) => {
    const { behaviour } = fake
    if (behaviour.developerModeOff) return dropUnverified()
    if (behaviour.refuseStart) return answerStart(command, 'failed', behaviour.refuseStart)
    if (['PREPARE', 'RUNNING', 'PAUSE', 'SLICING'].includes(String(fake.state.gcode_state)))
      return answerStart(command, 'failed', 'Device is busy and cannot start a new task')
    const name = String(command.url ?? '').replace(/^ftp:\/\//, '')
    const stored = fake.file(name)
    if (!stored || !(String(command.param) in unzipSync(stored)))
      return answerStart(command, 'failed', 'The file does not exist or is not a print package')
    if (!behaviour.unansweredStart) answerStart(command, 'success')
    if (behaviour.silentStart) return
    fake.report({
      gcode_state: 'PREPARE',
      gcode_file: name,
      subtask_name: command.subtask_name,
      mc_percent: 0,
      mc_remaining_time: 0,
      hms: [],
      print_error: 0,
    })
    later(behaviour.prepareMs ?? 30, () =>
      fake.report(
        behaviour.failWhilePreparing !== undefined
          ? { gcode_state: 'FAILED', print_error: behaviour.failWhilePreparing }
          : {
              gcode_state: 'RUNNING',
              mc_percent: 3,
              mc_remaining_time: 42,
              layer_num: 1,
              total_layer_num: 120,
              nozzle_temper: 219.5,
              nozzle_target_temper: 220,
              bed_temper: 54.8,
              bed_target_temper: 55,
            },
      ),
    )
  }

  const heartbeat = () =>
    later(fake.behaviour.reportEveryMs ?? 1000, () => {
      publish({ print: { command: 'push_status', msg: 1, sequence_id: '0', wifi_signal: fake.state.wifi_signal } })
      heartbeat()
    })
  heartbeat()

  const mqtt: Server = createServer(tls, broker.handle)
  await new Promise<void>((resolve) => mqtt.listen(0, '127.0.0.1', resolve))

  // ftp-srv adds process signal handlers per server; they are removed with it.
  const signalHandlers = new Set(process.listeners('SIGTERM'))
  const passive = 30_000 + Math.floor(Math.random() * 30_000)
  const ftp = new FtpSrv({
    url: 'ftps://127.0.0.1:0',
    tls,
    pasv_url: '127.0.0.1',
    pasv_min: passive,
    pasv_max: passive + 100,
    greeting: ['Welcome to the printer'],
    log: quietLog as never,
  })
  const added = process.listeners('SIGTERM').filter((handler) => !signalHandlers.has(handler))
  ftp.on('login', ({ username, password }, resolve, reject) => {
    fake.logins.push({ via: 'ftp', password })
    if (username === 'bblp' && password === accessCode) return resolve({ root: storage })
    reject(new Error('Login incorrect.'))
  })
  await ftp.listen()
  const ftpPort = ((ftp as unknown as { server: Server }).server.address() as AddressInfo).port
  const mqttPort = (mqtt.address() as AddressInfo).port
  fake.address = `bambu://127.0.0.1?mqtt_port=${mqttPort}&ftp_port=${ftpPort}`

  fake.close = async () => {
    for (const timer of timers) clearTimeout(timer)
    fake.dropConnections()
    await new Promise<void>((resolve) => broker.close(() => resolve()))
    await new Promise<void>((resolve) => mqtt.close(() => resolve()))
    await ftp.close()
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const)
      for (const handler of process.listeners(signal))
        if (added.includes(handler)) process.removeListener(signal, handler)
    rmSync(dir, { recursive: true, force: true })
  }
  return fake
}
