import {
  apiKeyCheck,
  type CommonBehaviour,
  type FakePrinter,
  multipartFile,
  settleMs,
  sleep,
  startFake,
} from '../fake-server.fake.js'

/**
 * OctoPrint's serial link when it is not operational, in the words OctoPrint 1.8+ reports
 * (octoprint/util/comm.py `getStateString`): `Offline` (never connected, or disconnected; the
 * connection endpoint then says `Closed`), the three steps of connecting, `Error` (the firmware or
 * the link failed; the port stays open) and `Offline after error` (OctoPrint closed the port), both
 * with the error text that `GET /api/job` carries in `error`.
 */
type OctoPrintLink =
  | 'Offline'
  | 'Opening serial connection'
  | 'Detecting serial connection'
  | 'Connecting'
  | { state: 'Error' | 'Offline after error'; error: string }

/** The phase of a running job, each with OctoPrint's state text; `Paused` alone is not `printing`. */
type OctoPrintJobPhase = 'Starting' | 'Pausing' | 'Paused' | 'Resuming' | 'Cancelling' | 'Finishing'

export interface OctoPrintBehaviour extends CommonBehaviour {
  /** The upload is stored but not selected. */
  noSelect?: boolean
  /** OctoPrint is not connected to the printer (operational when unset). */
  link?: OctoPrintLink
  /** The running job is in this phase (plain `Printing` when unset). */
  jobPhase?: OctoPrintJobPhase
  /** OctoPrint streams a file to the printer's SD card: a `Sending file to SD` "print". */
  sdTransfer?: string
  /**
   * The job of `state.printing` ran to its end: OctoPrint is `Operational` again, the file still
   * selected, at 100 % (as after `finishAtOnce`); the next start clears it.
   */
  finished?: boolean
}

const notOperational = { status: 409, json: { error: 'Printer is not operational' } }
const alreadyPrinting = {
  status: 409,
  json: { error: "Printer already has an active print job, did you mean 'restart'?" },
}

/**
 * OctoPrint 1.x's REST API (docs/api/*.rst; octoprint/server/api/printer.py, job.py, files.py;
 * octoprint/printer/standard.py), as a state machine: the link (`behaviour.link`), the selected
 * file, and the job (`state.printing`, in `behaviour.jobPhase`). What the real one does:
 * - `GET /api/printer` answers 409 "Printer is not operational" unless the link is operational, and
 *   leaves `bed` out of `temperature` when the printer profile has no heated bed;
 * - `GET /api/job` always answers, with the state text and, after an error, `error`; `completion`
 *   is in percent, null without a job; `printTimeLeft` is null while OctoPrint estimates;
 * - an upload selects (and prints) only when the printer is operational and has no job
 *   (`effectiveSelect`/`effectivePrint` say what was done), and overwriting the file being printed
 *   is refused (409);
 * - `POST /api/job` `start` is refused (409) when not operational or with a job, and answers 204
 *   doing nothing when no file is selected.
 */
export function fakeOctoPrint(apiKey?: string): Promise<FakePrinter<OctoPrintBehaviour>> {
  let selected: string | null = null
  // The selected file's last run completed: OctoPrint keeps its progress at 100 % until the next job.
  let completed = false
  // The selected file's last run was cancelled: OctoPrint keeps the progress it stopped at.
  let cancelled = false
  return startFake<OctoPrintBehaviour>(
    async (req, url, body, fake) => {
      const path = url.pathname
      // A slow host answers from one look at the printer, taken when it answers.
      if (path === '/api/printer' || (path === '/api/job' && req.method === 'GET'))
        await sleep(fake.behaviour.slowStatusMs ?? 0)
      const { link, jobPhase, sdTransfer } = fake.behaviour
      const operational = link === undefined
      if (fake.behaviour.finished && fake.state.printing) {
        selected = fake.state.printing
        fake.state.printing = null
        completed = true
      }
      const printing = operational ? (fake.state.printing ?? sdTransfer ?? null) : null
      const text = stateText(link, printing && (sdTransfer ? 'Sending file to SD' : (jobPhase ?? 'Printing')))
      if (path === '/api/version')
        return { status: 200, json: { api: '0.1', server: '1.10.2', text: 'OctoPrint 1.10.2' } }
      if (path === '/api/connection')
        return { status: 200, json: { current: { state: link === 'Offline' ? 'Closed' : text, port: '/dev/ttyACM0' } } }
      if (path === '/api/printer') {
        if (!operational) return notOperational
        return {
          status: 200,
          json: {
            temperature: {
              tool0: { actual: 214.8, target: 215, offset: 0 },
              ...(fake.behaviour.noBed ? {} : { bed: { actual: 60.1, target: 60, offset: 0 } }),
            },
            sd: { ready: true },
            state: { text, flags: flags(printing, jobPhase, !!sdTransfer), error: '' },
          },
        }
      }
      if (path === '/api/job' && req.method === 'GET') {
        const error = typeof link === 'object' ? { error: link.error } : {}
        return {
          status: 200,
          json: {
            ...jobAnswer(printing ?? selected, !!printing, completed && !printing, fake.behaviour),
            ...(cancelled && !printing ? { progress: { completion: 42.5, printTime: 510, printTimeLeft: null } } : {}),
            state: text,
            ...error,
          },
        }
      }
      if (path === '/api/files/local' && req.method === 'POST') {
        const file = multipartFile(body, String(req.headers['content-type']))
        if (file.name === printing)
          return { status: 409, json: { error: 'Trying to overwrite file that is currently being printed' } }
        fake.files.set(file.name, file.size)
        const free = operational && !printing
        const select =
          free && (file.fields.select === 'true' || file.fields.print === 'true') && !fake.behaviour.noSelect
        const print = free && file.fields.print === 'true'
        // Selecting again keeps the last run's progress (only the next start resets it).
        if (select) {
          if (file.name !== selected) completed = false
          selected = file.name
        }
        if (print && !fake.behaviour.silentStart) fake.state.printing = file.name
        return {
          status: 201,
          json: {
            files: { local: { name: file.name, path: file.name, origin: 'local' } },
            done: true,
            effectiveSelect: select,
            effectivePrint: print,
          },
        }
      }
      if (path === '/api/printer/command' && req.method === 'POST') {
        // octoprint/server/api/printer.py printerCommand: only while operational; `command` or
        // `commands`, not both; the lines are queued on the serial link and 204 answers at once.
        if (!operational) return notOperational
        const data = JSON.parse(body.toString() || '{}') as { command?: string; commands?: string[] }
        if (data.command !== undefined && data.commands !== undefined)
          return { status: 400, json: { error: "'command' and 'commands' are mutually exclusive" } }
        fake.commands.push(...(data.commands ?? (data.command === undefined ? [] : [data.command])))
        return { status: 204 }
      }
      if (path === '/api/job' && req.method === 'POST') {
        if (!operational) return notOperational
        const command = jobCommand(body)
        if (command.command === 'pause' || command.command === 'cancel') {
          // octoprint/server/api/job.py: a pause or cancel needs a job printing or paused.
          if (!fake.state.printing)
            return {
              status: 409,
              json: {
                error: `Printer is neither printing nor paused, '${command.command}' command cannot be performed`,
              },
            }
          const action = command.command === 'cancel' ? 'cancel' : (command.action ?? 'toggle')
          if (!['pause', 'resume', 'toggle', 'cancel'].includes(action))
            return {
              status: 400,
              json: {
                error: `Unknown action '${action}', allowed values for action parameter are 'pause', 'resume' and 'toggle'`,
              },
            }
          const paused = fake.behaviour.jobPhase === 'Paused'
          const pausing = action === 'pause' || (action === 'toggle' && !paused)
          // Pausing a paused job, or resuming a running one, does nothing (octoprint/printer/standard.py).
          if ((pausing && paused) || (action === 'resume' && !paused)) return { status: 204 }
          const [during, after] =
            action === 'cancel'
              ? (['Cancelling', null] as const)
              : pausing
                ? (['Pausing', 'Paused'] as const)
                : (['Resuming', undefined] as const)
          fake.behaviour.jobPhase = during
          setTimeout(() => {
            if (after === null) {
              fake.state.printing = null
              fake.behaviour.jobPhase = undefined
              cancelled = true
            } else fake.behaviour.jobPhase = after
          }, settleMs(fake.behaviour))
          return { status: 204 }
        }
        // `refuseStart`: another client started a job between our last look and the start.
        if (printing || fake.behaviour.refuseStart) return alreadyPrinting
        if (!fake.behaviour.silentStart) {
          cancelled = false
          fake.behaviour.finished = undefined
          completed = !!fake.behaviour.finishAtOnce
          if (!completed) fake.state.printing = selected
        }
        return { status: 204 }
      }
      return { status: 404, json: { error: 'Not found' } }
    },
    apiKeyCheck(apiKey, 403, {
      error:
        "You don't have the permission to access the requested resource. It is either read-protected or not readable by the server.",
    }),
  )
}

/** The JSON command of a `POST /api/job` body; empty when it is none. */
function jobCommand(body: Buffer): { command?: string; action?: string } {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'))
    return parsed !== null && typeof parsed === 'object' ? (parsed as { command?: string; action?: string }) : {}
  } catch {
    return {}
  }
}

/** The state text: the link's when it is not operational, else the job's phase, else `Operational`. */
function stateText(link: OctoPrintLink | undefined, job: string | null): string {
  if (typeof link === 'object') return link.state
  return link ?? job ?? 'Operational'
}

/** `state.flags` of an operational printer (octoprint/printer/standard.py `_getStateFlags`). */
function flags(printing: string | null, phase: OctoPrintJobPhase | undefined, streaming: boolean) {
  const job = printing !== null
  return {
    operational: true,
    printing: job && phase !== 'Paused',
    paused: job && phase === 'Paused',
    pausing: job && phase === 'Pausing',
    resuming: job && phase === 'Resuming',
    cancelling: job && phase === 'Cancelling',
    finishing: job && phase === 'Finishing',
    closedOrError: false,
    error: false,
    ready: !job && !streaming,
    sdReady: true,
  }
}

/**
 * `job` and `progress` of `GET /api/job`: the selected file, and progress while it prints or, at
 * 100 %, once its run completed.
 */
function jobAnswer(file: string | null, printing: boolean, completed: boolean, behaviour: OctoPrintBehaviour) {
  const started = printing && behaviour.heating
  if (completed)
    return {
      job: { file: { name: file, path: file, origin: 'local', size: 2048 }, estimatedPrintTime: 1200 },
      progress: { completion: 100, printTime: 1190, printTimeLeft: 0, printTimeLeftOrigin: null },
    }
  return {
    job: {
      file: file ? { name: file, path: file, origin: 'local', size: 2048 } : { name: null, path: null, origin: null },
      estimatedPrintTime: file ? 1200 : null,
    },
    progress: {
      completion: printing ? (started ? 0 : 42.5) : null,
      printTime: printing ? (started ? 35 : 510) : null,
      printTimeLeft: printing && !started ? 690 : null,
      printTimeLeftOrigin: printing && !started ? 'estimate' : null,
    },
  }
}
