const count = new Intl.NumberFormat()

/** A count for people: "1,234" (in their locale). */
export const formatCount = (n: number) => count.format(n)

/** "1 file", "1,234 files". */
export const filesOf = (n: number) => `${formatCount(n)} ${n === 1 ? 'file' : 'files'}`

/** A time left, roughly: "under a minute", "about 2 min", "about 3 h". */
export function formatTimeLeft(seconds: number): string {
  if (seconds < 60) return 'under a minute'
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`
  return `about ${Math.round(seconds / 360) / 10} h`
}

/** A date and time for people, in their locale. */
export const formatDateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
