import { fraction, type PrinterStatus } from '../../../core/printers/provider.js'
import { finiteNumberOrNull, str } from '../http.js'
import { jobEnding } from '../state-words.js'
import { bambuHmsErrors, bambuJobEndings, mapBambu } from './bambu-states.js'

/** The states in which `gcode_file` and `subtask_name` name a job (the current or the last one). */
const withJob = new Set(['PREPARE', 'RUNNING', 'PAUSE', 'FINISH', 'FAILED'])

/**
 * The job's file: `gcode_file`, unless that is the plate inside a `.gcode.3mf`
 * (`/data/Metadata/plate_1.gcode` on some firmware), then `subtask_name`, which the vault sets to
 * the file's name when it starts one.
 */
function jobFile(report: Record<string, unknown>): string | null {
  const file = str(report.gcode_file)?.replace(/^.*\//, '') || null
  const subtask = str(report.subtask_name) || null
  return file && !/^plate_\d+\.gcode$/i.test(file) ? file : (subtask ?? file)
}

const temperature = (report: Record<string, unknown>, actual: string, target: string) =>
  actual in report ? { actual: finiteNumberOrNull(report[actual]), target: finiteNumberOrNull(report[target]) } : null

/**
 * A printer's status from its merged `print` report: `gcode_state` and HMS errors (see
 * `mapBambu`), `mc_percent` (percent), `mc_remaining_time` (minutes), the temperatures, and the
 * layer in `raw`.
 */
export function bambuStatus(report: Record<string, unknown>): PrinterStatus {
  const hms = bambuHmsErrors(report.hms)
  const state = report.gcode_state
  const fileName = typeof state === 'string' && withJob.has(state) ? jobFile(report) : null
  const minutesLeft = finiteNumberOrNull(report.mc_remaining_time)
  return {
    ...mapBambu(state, hms, report.print_error),
    temperatures: {
      nozzle: temperature(report, 'nozzle_temper', 'nozzle_target_temper'),
      bed: temperature(report, 'bed_temper', 'bed_target_temper'),
    },
    job: fileName
      ? {
          file_name: fileName,
          progress: fraction((finiteNumberOrNull(report.mc_percent) ?? Number.NaN) / 100),
          time_left_s: minutesLeft === null ? null : minutesLeft * 60,
          elapsed_s: null,
          ended: jobEnding(bambuJobEndings, state),
          // LAN jobs carry no id of their own (`job_id` and `task_id` read "0" or are absent).
          run_id: null,
        }
      : null,
    raw: {
      gcode_state: state ?? null,
      layer_num: report.layer_num ?? null,
      total_layer_num: report.total_layer_num ?? null,
      print_error: report.print_error ?? null,
      hms: hms.map((error) => error.code),
    },
  }
}
