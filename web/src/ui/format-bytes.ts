const units = ['B', 'KB', 'MB', 'GB', 'TB']

/** A byte count for people: `0 B`, `12.3 KB`, `4.56 GB` (powers of 1000, as disks are sold). */
export function formatBytes(bytes: number): string {
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit += 1
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${value.toFixed(digits)} ${units[unit]}`
}
