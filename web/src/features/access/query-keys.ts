/** The access feature's query keys, in one place. */
export const accessKeys = {
  apiKeys: ['access', 'api-keys'] as const,
}
