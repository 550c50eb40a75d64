/** The overview feature's query keys, in one place. */
export const overviewKeys = {
  stats: ['overview', 'stats'] as const,
  health: ['overview', 'health'] as const,
}
