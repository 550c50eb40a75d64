/** The analysis feature's query keys, in one place. */
export const analysisKeys = {
  status: ['analysis', 'status'] as const,
}
