/** The printers feature's query keys, in one place. */
export const printerKeys = {
  all: ['printers'] as const,
  list: ['printers', 'list'] as const,
  providers: ['printers', 'providers'] as const,
  printer: (id: string) => ['printers', 'printer', id] as const,
  diagnostics: (id: string) => ['printers', 'diagnostics', id] as const,
  dispatches: (id: string) => ['printers', 'dispatches', id] as const,
  gcodeModels: (search: string) => ['printers', 'gcode-models', search] as const,
  modelFiles: (modelId: string) => ['printers', 'model-files', modelId] as const,
}
