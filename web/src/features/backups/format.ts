const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
const steps: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
]

/** How long ago `iso` was, for people: "5 minutes ago", "yesterday". */
export function formatAge(iso: string, now = Date.now()): string {
  let value = (new Date(iso).getTime() - now) / 1000
  for (const [unit, size] of steps) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit)
    value /= size
  }
  return iso
}

/** A date and time for people, in their locale. */
export const formatDateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

const phases: Record<string, string> = {
  verifying: 'Checking the archive',
  safety_copy: 'Writing a safety copy of the current database',
  swapping: 'Replacing the database',
  finishing: 'Finishing',
}

/** What a restore is doing now, for people. */
export const restorePhase = (phase: string) => phases[phase] ?? phase
