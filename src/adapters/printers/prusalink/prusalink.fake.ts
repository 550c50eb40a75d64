import { createHash, randomBytes } from 'node:crypto'
import {
  type Answer,
  type Authorize,
  type CommonBehaviour,
  type FakePrinter,
  settleMs,
  sleep,
  startFake,
} from '../fake-server.fake.js'

/** PrusaLink v1 `printer.state` (Prusa-Link-Web spec/openapi.yaml, StatusPrinter). */
type PrusaLinkState = 'IDLE' | 'BUSY' | 'PRINTING' | 'PAUSED' | 'FINISHED' | 'STOPPED' | 'ERROR' | 'ATTENTION' | 'READY'

export interface PrusaLinkBehaviour extends CommonBehaviour {
  /**
   * The printer's state when it is not plainly IDLE or PRINTING, as Buddy firmware reports it
   * (src/state/printer_state.cpp): READY (set ready at the printer), BUSY (a calibration, preheat,
   * filament load or menu), PAUSED, FINISHED and STOPPED (the last job's end screen, until someone
   * leaves it), ATTENTION (a question or warning on the screen, a job may be paused behind it),
   * ERROR. `state.printing` is the job's file, kept through FINISHED and STOPPED.
   */
  printer?: Exclude<PrusaLinkState, 'IDLE' | 'PRINTING'>
  /** Prusa-Link's worst failing printer condition: `status_printer: {ok: false, message}` (else `{ok: true, message: "OK"}`). */
  printerProblem?: string
  /** No temperatures yet: Prusa-Link leaves out the null telemetry values (`filter_null`). */
  noTelemetry?: boolean
  /** How long a digest nonce is good for (Buddy: 5 s). */
  nonceLifetimeMs?: number
  /**
   * The network drops as a start is taken: every later request answers 503 (`status`) until the
   * test clears it, while the printer prints on from its USB stick, unseen.
   */
  dropLinkOnStart?: boolean
  /** `GET /api/v1/job` answers 204 while the status still shows a job, as between a job's end and its next status. */
  jobUnnamed?: boolean
}

/** States in which a start is taken: Buddy starts from the home and the print-finished screens. */
const takesAJob: ReadonlySet<PrusaLinkState> = new Set(['IDLE', 'READY', 'FINISHED', 'STOPPED'])

/** PrusaLink's error answer to a client that accepts JSON (prusa/link/conditions.py `json_response`). */
const conflict = (title: string, message: string): Answer => ({ status: 409, json: { title, message } })
const notInStateToPrint = conflict('Not in state to print', 'Printer is not in state to print.')

/** A FAT short name, as Buddy names the job's file in `GET /api/v1/job` (`display_name` is the long one). */
const shortName = (name: string) => {
  const [, stem = name, extension = ''] = /^(.*?)(?:\.([^.]*))?$/.exec(name) ?? []
  const short = (part: string, length: number) =>
    part
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, length)
      .toUpperCase()
  return `${short(stem, 6)}~1.${short(extension, 3)}`
}

/**
 * PrusaLink v1 with HTTP Digest (see `digestCheck`), as a state machine of `behaviour.printer`
 * and the job in `state.printing`. As the real one: `GET /api/v1/status` has `job` while there
 * is one, FINISHED and STOPPED included, without `time_remaining` while the printer has no
 * estimate; `GET /api/v1/job` answers 204 without a job and names the file by its short name with
 * the long one in `display_name`; a start (`POST` on the file, or `Print-After-Upload: ?1`) is
 * refused with 409 unless the printer is idle, ready or on the last job's end screen; an upload
 * over an existing file without `Overwrite: ?1`, or over the file being printed, is refused with 409.
 */
export function fakePrusaLink(user?: { username: string; password: string }): Promise<FakePrinter<PrusaLinkBehaviour>> {
  // Buddy numbers jobs: each start gets the next id.
  let jobId = 7
  return startFake<PrusaLinkBehaviour>(async (req, url, body, fake) => {
    const path = decodeURIComponent(url.pathname)
    // A slow host answers from one look at the printer, taken when it answers.
    if (path === '/api/v1/status' || path === '/api/v1/job') await sleep(fake.behaviour.slowStatusMs ?? 0)
    const printing = fake.state.printing
    const state: PrusaLinkState = fake.behaviour.printer ?? (printing ? 'PRINTING' : 'IDLE')
    const startJob = (name: string) => {
      if (fake.behaviour.silentStart) return
      fake.state.printing = name
      fake.behaviour.printer = fake.behaviour.finishAtOnce ? 'FINISHED' : undefined
      jobId += 1
      if (fake.behaviour.dropLinkOnStart) fake.behaviour.status = 503
    }
    if (path === '/api/version')
      return {
        status: 200,
        json: { api: '2.0.0', server: '2.1.2', text: 'PrusaLink', hostname: 'mk4', firmware: '6.1.3' },
      }
    if (path === '/api/v1/info')
      return { status: 200, json: { nozzle_diameter: 0.4, hostname: 'mk4', serial: 'SN123' } }
    if (path === '/api/v1/storage')
      return {
        status: 200,
        json: { storage_list: [{ name: 'usb', type: 'USB', path: '/usb/', read_only: false, available: true }] },
      }
    if (path === '/api/v1/status') {
      return { status: 200, json: statusAnswer(state, printing, jobId, fake.behaviour) }
    }
    if (path === '/api/v1/job') {
      if (!printing || fake.behaviour.jobUnnamed) return { status: 204 }
      return {
        status: 200,
        json: {
          id: jobId,
          state: state === 'ATTENTION' ? 'PAUSED' : state,
          ...jobProgress(state, fake.behaviour),
          file: { name: shortName(printing), display_name: printing, path: '/usb' },
        },
      }
    }
    const control = /^\/api\/v1\/job\/(\d+)(\/pause|\/resume)?$/.exec(path)
    if (control) {
      // prusa/link/web/v1.py: the job is named by its id (404 for any other), and its state must allow the control.
      if (!printing || Number(control[1]) !== jobId)
        return { status: 404, json: { title: 'Not Found', message: 'Job not found.' } }
      const verb = control[2] === '/pause' ? 'pause' : control[2] === '/resume' ? 'resume' : 'stop'
      const method = verb === 'stop' ? 'DELETE' : 'PUT'
      if (req.method !== method) return { status: 405 }
      const from = { pause: ['PRINTING'], resume: ['PAUSED'], stop: ['PRINTING', 'PAUSED'] }[verb]
      if (!from.includes(state))
        return conflict(`Not in state to ${verb}`, `Printer is not in state to ${verb} the job.`)
      // The printer takes a moment (parking the head) before it reports the new state.
      setTimeout(() => {
        fake.behaviour.printer = verb === 'pause' ? 'PAUSED' : verb === 'resume' ? undefined : 'STOPPED'
      }, settleMs(fake.behaviour))
      return { status: 204 }
    }
    const file = /^\/api\/v1\/files\/usb\/(.+)$/.exec(path)
    if (file && req.method === 'PUT') {
      const name = file[1]!
      if (fake.files.has(name) && req.headers.overwrite !== '?1')
        return conflict('File Already Exists', 'File already exists.')
      if (name === printing && !takesAJob.has(state))
        return conflict(
          'File is currently printed',
          'You try to do an operation with the file, which is currently printed.',
        )
      fake.files.set(name, body.length)
      if (req.headers['print-after-upload'] === '?1') {
        if (!takesAJob.has(state)) return notInStateToPrint
        startJob(name)
      }
      return { status: 201 }
    }
    if (file && req.method === 'POST') {
      if (!fake.files.has(file[1]!))
        return { status: 404, json: { title: 'File Not Found', message: 'File you want was not found.' } }
      if (fake.behaviour.refuseStart || !takesAJob.has(state)) return notInStateToPrint
      startJob(file[1]!)
      return { status: 204 }
    }
    return { status: 404 }
  }, digestCheck(user))
}

/**
 * HTTP Digest as Buddy firmware checks it (lib/WUI/nhttp/req_parser.cpp): realm "Printer API", no
 * qop, and a nonce good for a few seconds (`nonceLifetimeMs`); the right answer to an older nonce
 * gets 401 with a new nonce and `stale=true`, which tells the client to answer that one instead.
 */
function digestCheck(user?: { username: string; password: string }): Authorize<PrusaLinkBehaviour> {
  const realm = 'Printer API'
  const issued = new Map<string, number>()
  const md5 = (value: string) => createHash('md5').update(value).digest('hex')
  const challenge = (stale: boolean) => {
    const nonce = randomBytes(8).toString('hex')
    issued.set(nonce, Date.now())
    return { status: 401, headers: { 'WWW-Authenticate': `Digest realm="${realm}", nonce="${nonce}", stale=${stale}` } }
  }
  return (req, fake) => {
    if (!user) return null
    const header = req.headers.authorization ?? ''
    const fields = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const issuedAt = issued.get(fields.nonce ?? '')
    const expected = md5(
      `${md5(`${user.username}:${realm}:${user.password}`)}:${fields.nonce}:${md5(`${req.method}:${fields.uri}`)}`,
    )
    const right =
      header.startsWith('Digest ') &&
      fields.username === user.username &&
      issuedAt !== undefined &&
      fields.response === expected
    if (!right) return challenge(false)
    return Date.now() - issuedAt < (fake.behaviour.nonceLifetimeMs ?? 5_000) ? null : challenge(true)
  }
}

/** `GET /api/v1/status`: the printer, and the job while there is one (through its end screen). */
function statusAnswer(state: PrusaLinkState, printing: string | null, jobId: number, behaviour: PrusaLinkBehaviour) {
  const active = state === 'PRINTING' || state === 'PAUSED' || state === 'ATTENTION'
  const telemetry = behaviour.noTelemetry
    ? {}
    : {
        temp_nozzle: 214.9,
        target_nozzle: active ? 215 : 0,
        temp_bed: 59.7,
        target_bed: active ? 60 : 0,
      }
  const problem = behaviour.printerProblem
  return {
    printer: {
      state,
      ...telemetry,
      status_printer: problem ? { ok: false, message: problem } : { ok: true, message: 'OK' },
    },
    ...(printing ? { job: { id: jobId, ...jobProgress(state, behaviour) } } : {}),
    storage: { path: '/usb/', name: 'usb', read_only: false },
  }
}

/** Progress in percent and times in seconds; FINISHED is at 100, and a job just begun has no estimate. */
function jobProgress(state: PrusaLinkState, behaviour: PrusaLinkBehaviour) {
  if (state === 'FINISHED') return { progress: 100, time_remaining: 0, time_printing: 3400 }
  if (behaviour.heating) return { progress: 0, time_printing: 35 }
  return { progress: 12, time_remaining: 3000, time_printing: 400 }
}
