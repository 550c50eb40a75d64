/** The auth feature's query keys, in one place. */
export const authKeys = {
  me: ['auth', 'me'] as const,
}
