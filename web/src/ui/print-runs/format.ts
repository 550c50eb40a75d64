import type { PrintRun, PrintRunSummary } from './use-print-runs'

export const runStateLabels: Record<PrintRun['state'], string> = {
  printing: 'Printing',
  completed: 'Completed',
  cancelled: 'Cancelled',
  failed: 'Failed',
}

export const runStateColors: Record<PrintRun['state'], string> = {
  printing: 'blue',
  completed: 'teal',
  cancelled: 'gray',
  failed: 'red',
}

/** `1 h 32 min`, `12 min`, `40 s`. */
export function durationText(seconds: number | null): string {
  if (seconds === null) return '—'
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.round(seconds / 60)
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

/** `4.6 g · 1.52 m`, whichever the run knows; a dash when neither. */
export function filamentText(run: Pick<PrintRun, 'filament_g' | 'filament_mm'>): string {
  const parts = [
    ...(run.filament_g ? [`${run.filament_g.toFixed(1)} g`] : []),
    ...(run.filament_mm ? [`${(run.filament_mm / 1000).toFixed(2)} m`] : []),
  ]
  return parts.length > 0 ? parts.join(' · ') : '—'
}

/** `Success rate 75% (3 of 4 ended) · 2 printing · 12.3 g`. */
export function summaryText(summary: PrintRunSummary): string {
  const ended = summary.completed + summary.cancelled + summary.failed
  const rate =
    summary.success_rate === null
      ? 'No print has ended yet'
      : `Success rate ${Math.round(summary.success_rate * 100)}% (${summary.completed} of ${ended} completed)`
  return [
    rate,
    ...(summary.printing > 0 ? [`${summary.printing} printing`] : []),
    ...(summary.filament_g > 0 || summary.filament_mm > 0 ? [`filament ${filamentText(summary)}`] : []),
  ].join(' · ')
}
