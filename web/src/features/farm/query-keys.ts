/** The farm feature's query keys, in one place. */
export const farmKeys = {
  all: ['farm'] as const,
  printers: ['farm', 'printers'] as const,
  queue: (state: string | undefined) => ['farm', 'queue', state ?? 'open'] as const,
  model: (id: string) => ['farm', 'model', id] as const,
}
