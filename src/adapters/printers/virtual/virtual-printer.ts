import { clearBedAdvice } from '../../../core/printers/bed-clearance.js'
import { PrinterError, type PrinterProviderFactory, type PrinterStatus } from '../../../core/printers/provider.js'
import type { Clock } from '../../../core/runtime/clock.js'

/**
 * A simulated printer for trying the whole flow without hardware. Address
 * `virtual://<name>?heat_seconds=30&print_seconds=600`: a started job heats for
 * `heat_seconds`, prints for `print_seconds` (progress driven by the injected clock) and
 * finishes; any G-code script then takes the print off its bed. It pauses (the clock of the job stands
 * still), resumes and cancels as a host does, and refuses each where nothing prints or the state
 * forbids it. Its files and job live in this process's memory and are gone after a restart.
 */
interface Machine {
  files: Map<string, number>
  job: {
    name: string
    startedAt: number
    /** Time spent paused by earlier pauses, and when the current one began. */
    pausedMs: number
    pausedAt: number | null
    cancelledAt: number | null
  } | null
}

const ambient = 22
const nozzleTarget = 215
const bedTarget = 60

export function createVirtualPrinters(clock: Clock): PrinterProviderFactory {
  const machines = new Map<string, Machine>()
  return (connection) => {
    const params = new URL(connection.address.replace(/^virtual:(\/\/)?/, 'virtual://')).searchParams
    const seconds = (name: string, fallback: number) => {
      const value = Number(params.get(name) ?? fallback)
      return Number.isFinite(value) && value >= 0 ? value * 1000 : fallback * 1000
    }
    const heatMs = seconds('heat_seconds', 30)
    const printMs = seconds('print_seconds', 600)
    const machine = machines.get(connection.id) ?? { files: new Map(), job: null }
    machines.set(connection.id, machine)

    const status = async (): Promise<PrinterStatus> => {
      const job = machine.job
      if (!job) {
        return {
          state: 'idle',
          reason: null,
          temperatures: { nozzle: { actual: ambient, target: 0 }, bed: { actual: ambient, target: 0 } },
          job: null,
          raw: { phase: 'standby' },
        }
      }
      const now = clock.now().getTime()
      const elapsed = (job.cancelledAt ?? job.pausedAt ?? now) - job.startedAt - job.pausedMs
      if (job.cancelledAt !== null) {
        return {
          state: 'idle',
          reason: `the last job was cancelled; ${clearBedAdvice}`,
          temperatures: { nozzle: { actual: ambient, target: 0 }, bed: { actual: ambient, target: 0 } },
          job: {
            file_name: job.name,
            progress: Math.max(0, (elapsed - heatMs) / Math.max(printMs, 1)),
            time_left_s: null,
            elapsed_s: Math.round(elapsed / 1000),
            ended: 'cancelled',
            run_id: String(job.startedAt),
          },
          raw: { phase: 'cancelled' },
        }
      }
      if (elapsed >= heatMs + printMs) {
        return {
          state: 'idle',
          reason: `the last job finished; ${clearBedAdvice}`,
          temperatures: { nozzle: { actual: ambient, target: 0 }, bed: { actual: ambient, target: 0 } },
          job: {
            file_name: job.name,
            progress: 1,
            time_left_s: 0,
            elapsed_s: Math.round((heatMs + printMs) / 1000),
            ended: 'completed',
            run_id: String(job.startedAt),
          },
          raw: { phase: 'finished' },
        }
      }
      const heating = elapsed < heatMs
      const warmth = heating ? elapsed / Math.max(heatMs, 1) : 1
      return {
        state: job.pausedAt !== null ? 'paused' : 'printing',
        reason: job.pausedAt === null && heating ? 'heating' : null,
        temperatures: {
          nozzle: { actual: Math.round(ambient + (nozzleTarget - ambient) * warmth), target: nozzleTarget },
          bed: { actual: Math.round(ambient + (bedTarget - ambient) * warmth), target: bedTarget },
        },
        job: {
          file_name: job.name,
          progress: heating ? 0 : (elapsed - heatMs) / Math.max(printMs, 1),
          time_left_s: Math.round((heatMs + printMs - elapsed) / 1000),
          elapsed_s: Math.round(elapsed / 1000),
          ended: null,
          run_id: String(job.startedAt),
        },
        raw: { phase: job.pausedAt !== null ? 'paused' : heating ? 'heating' : 'printing' },
      }
    }

    /** The job, when the printer is in one of `states`; else the refusal a host gives. */
    const running = async (verb: string, ...states: string[]) => {
      const { state } = await status()
      if (!machine.job || !states.includes(state))
        throw new PrinterError('refused', `the virtual printer is ${state}; it cannot ${verb}`)
      return machine.job
    }

    return {
      status,
      async diagnostics() {
        return {
          reachable: true,
          authenticated: null,
          firmware_link: true,
          latency_ms: 0,
          identity: { software: 'model-vault virtual printer', version: null, api_version: null, hostname: null },
          capabilities: {
            upload: true,
            start: true,
            accepted_extensions: ['.gcode'],
            storages: ['memory'],
            live_push: 'none',
          },
          checks: [
            {
              name: 'simulation',
              result: 'pass',
              detail: `heats for ${heatMs / 1000} s, prints for ${printMs / 1000} s`,
            },
          ],
        }
      },
      async upload(file) {
        let size = 0
        const reader = file.stream.getReader()
        for (let part = await reader.read(); !part.done; part = await reader.read()) size += part.value.byteLength
        machine.files.set(file.name, size)
        return { remote_name: file.name, started: false }
      },
      async start(remoteName) {
        if (!machine.files.has(remoteName))
          throw new PrinterError('refused', `the virtual printer has no file ${remoteName}`)
        if ((await status()).state !== 'idle')
          throw new PrinterError('refused', 'the virtual printer is already printing')
        machine.job = {
          name: remoteName,
          startedAt: clock.now().getTime(),
          pausedMs: 0,
          pausedAt: null,
          cancelledAt: null,
        }
      },
      async pause() {
        const job = await running('pause', 'printing')
        job.pausedAt = clock.now().getTime()
      },
      async resume() {
        const job = await running('resume', 'paused')
        job.pausedMs += clock.now().getTime() - (job.pausedAt ?? clock.now().getTime())
        job.pausedAt = null
      },
      async cancel() {
        const job = await running('cancel', 'printing', 'paused')
        if (job.pausedAt !== null) job.pausedMs += clock.now().getTime() - job.pausedAt
        job.pausedAt = null
        job.cancelledAt = clock.now().getTime()
      },
      // A script clears the simulated bed: the finished job is taken off, and the printer is idle again.
      async runGcode() {
        if ((await status()).state !== 'idle')
          throw new PrinterError('refused', 'the virtual printer is printing; it runs no script now')
        machine.job = null
      },
    }
  }
}
