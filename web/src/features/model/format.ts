/** Display helpers for file figures. */

/** `5432` → `1 h 30 min`. */
export function formatDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600)
  const minutes = Math.round((seconds % 3600) / 60)
  if (hours === 0) return minutes === 0 ? `${Math.round(seconds)} s` : `${minutes} min`
  return `${hours} h ${minutes} min`
}

/** A number with at most `digits` decimals and thousands separators. */
export const formatNumber = (value: number, digits = 1) => value.toLocaleString('en', { maximumFractionDigits: digits })

/** `[20, 10, 5]` → `20 × 10 × 5 mm` (X × Y × Z). */
export const formatDimensions = (size: readonly number[]) => `${size.map((v) => formatNumber(v)).join(' × ')} mm`
