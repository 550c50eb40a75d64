/** The formats the vault understands; anything else is stored and listed as `other`. */
export type FileFormat = 'stl' | '3mf' | 'obj' | 'gcode' | 'step' | 'other'

const byExtension: Record<string, FileFormat> = {
  stl: 'stl',
  '3mf': '3mf',
  obj: 'obj',
  gcode: 'gcode',
  gco: 'gcode',
  g: 'gcode',
  step: 'step',
  stp: 'step',
}

const contentTypes: Record<FileFormat, string> = {
  stl: 'model/stl',
  '3mf': 'model/3mf',
  obj: 'model/obj',
  gcode: 'text/x.gcode',
  step: 'model/step',
  other: 'application/octet-stream',
}

/** The format by file name; each reader then checks the bytes really are what the name says. */
export function formatOf(filename: string): FileFormat {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase()
  return (extension && byExtension[extension]) || 'other'
}

export const contentTypeOf = (format: FileFormat) => contentTypes[format]

/** Every `Content-Type` a stored file is served with. */
export const storedContentTypes = [...new Set(Object.values(contentTypes))]

export const isMeshFormat = (format: FileFormat) => format === 'stl' || format === '3mf' || format === 'obj'

/**
 * A stored name: the last path segment of what the client sent, without control characters,
 * at most 255 characters. Browsers and slicer hooks send paths on some platforms.
 */
export function cleanFilename(raw: string): string {
  const name =
    raw
      .split(/[\\/]/)
      .at(-1)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes.
      ?.replace(/[\u0000-\u001f\u007f]/g, '')
      .trim() ?? ''
  return name.slice(-255) || 'upload'
}
