/** The model feature's query keys, in one place. */
export const modelKeys = {
  model: (id: string) => ['model', id] as const,
}
