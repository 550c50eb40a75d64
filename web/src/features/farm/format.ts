import type { PrintJob, PrintTarget } from './types'

/** Where a job may print, in words; a printer by its name once the fleet has loaded. */
export function targetText(target: PrintTarget, printerName: (id: string) => string | undefined): string {
  if (target.kind === 'printer') return `On ${printerName(target.printer_id) ?? 'a removed printer'}`
  if (target.kind === 'group') return `Any printer in ${target.group}`
  return 'Any compatible printer'
}

export const stateLabels: Record<PrintJob['state'], string> = {
  queued: 'Queued',
  held: 'Held',
  dispatching: 'Being sent',
  printing: 'Printing',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
}

export const stateColors: Record<PrintJob['state'], string> = {
  queued: 'blue',
  held: 'yellow',
  dispatching: 'cyan',
  printing: 'green',
  completed: 'teal',
  failed: 'red',
  cancelled: 'gray',
}

/** Whether a job still waits for a printer, and so can be moved in the queue. */
export const isWaiting = (job: PrintJob) => job.state === 'queued' || job.state === 'held'
