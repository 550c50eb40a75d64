import type { PrinterStatus } from './types'

/** A duration for people: `45 s`, `12 min`, `2 h 05 min`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`
}

type Temperature = PrinterStatus['temperatures']['nozzle']

/** `212 / 215 °C`, `22 °C` when nothing is asked for, `—` when the printer did not say. */
export function formatTemperature(temperature: Temperature): string {
  if (!temperature || temperature.actual === null) return '—'
  const actual = Math.round(temperature.actual)
  return temperature.target ? `${actual} / ${Math.round(temperature.target)} °C` : `${actual} °C`
}

/** Mantine colours per state: green for ready work, blue while printing, red for trouble. */
export const stateColors: Record<PrinterStatus['state'], string> = {
  idle: 'green',
  printing: 'blue',
  busy: 'yellow',
  paused: 'yellow',
  error: 'red',
  offline: 'gray',
  unknown: 'gray',
}

/** The state as a word for people. */
export const stateLabels: Record<PrinterStatus['state'], string> = {
  idle: 'Idle',
  printing: 'Printing',
  busy: 'Busy',
  paused: 'Paused',
  error: 'Error',
  offline: 'Offline',
  unknown: 'Unknown',
}
