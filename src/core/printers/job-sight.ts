import type { PrinterJob, PrinterStatus } from './provider.js'

/**
 * What a status after the start shows of the file sent: `printing` it (or paused; an unnamed job
 * counts only while printing); `preparing` it (busy with it, not yet printing); a run of it that
 * `completed` since the start, or one that `ended` otherwise; or `not_seen`.
 */
export type Sight = 'printing' | 'preparing' | 'completed' | 'ended' | 'not_seen'

export function sightOf(status: PrinterStatus, remote: string, before: PrinterStatus | null): Sight {
  const job = status.job
  const name = job?.file_name?.replace(/^.*\//, '') ?? null
  if (name === null) return status.state === 'printing' ? 'printing' : 'not_seen'
  if (name !== remote) return 'not_seen'
  if (job?.ended)
    return isNewRun(job, before?.job ?? null) ? (job.ended === 'completed' ? 'completed' : 'ended') : 'not_seen'
  if (status.state === 'printing' || status.state === 'paused') return 'printing'
  return status.state === 'busy' ? 'preparing' : 'not_seen'
}

/**
 * Whether an ended job is a run other than the one the printer showed before the start: by the
 * host's run ids where both have one; without them, only when the printer did not already show
 * an ended run of this file, so an earlier run of the same name never confirms a send.
 */
function isNewRun(job: PrinterJob, prior: PrinterJob | null): boolean {
  if (!prior?.ended) return true
  if (job.run_id !== null && prior.run_id !== null) return job.run_id !== prior.run_id
  return prior.file_name?.replace(/^.*\//, '') !== job.file_name?.replace(/^.*\//, '')
}
