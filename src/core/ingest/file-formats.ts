import { roleOf } from '../library/file-roles.js'

/** The formats the vault understands; anything else is stored and listed as `other`. */
export type FileFormat = 'stl' | '3mf' | 'obj' | 'gcode' | 'step' | 'image' | 'document' | 'other'

const byExtension: Record<string, FileFormat> = {
  stl: 'stl',
  '3mf': '3mf',
  obj: 'obj',
  gcode: 'gcode',
  // Prusa's binary G-code: format gcode, read by its `GCDE` magic, sent only to printers that take it.
  bgcode: 'gcode',
  gco: 'gcode',
  g: 'gcode',
  step: 'step',
  stp: 'step',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  webp: 'image',
  gif: 'image',
  pdf: 'document',
  txt: 'document',
  md: 'document',
  markdown: 'document',
}

/** Media types of images and documents, by extension; never HTML or SVG, which a browser would run. */
const mediaContentTypes: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
}

/** Base names (any extension, any case) of the documents that come with models and code. */
const documentBaseNames = new Set(['readme', 'license', 'licence', 'copying', 'notice', 'authors', 'changelog'])

const contentTypes: Record<FileFormat, string> = {
  stl: 'model/stl',
  '3mf': 'model/3mf',
  obj: 'model/obj',
  gcode: 'text/x.gcode',
  step: 'model/step',
  image: 'application/octet-stream',
  document: 'text/plain; charset=utf-8',
  other: 'application/octet-stream',
}

const extensionOf = (filename: string) => /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase()

/** The format by file name; each reader then checks the bytes really are what the name says. */
export function formatOf(filename: string): FileFormat {
  const extension = extensionOf(filename)
  const fromExtension = extension ? byExtension[extension] : undefined
  if (fromExtension) return fromExtension
  return documentBaseNames.has(filename.replace(/\.[^.]*$/, '').toLowerCase()) ? 'document' : 'other'
}

/**
 * The `Content-Type` a file is served with: its format's, or for images and documents its
 * extension's; binary G-code is no text.
 */
export function contentTypeOf(format: FileFormat, filename: string): string {
  const extension = extensionOf(filename)
  if (extension === 'bgcode') return 'application/octet-stream'
  return (roleOf(format) !== 'part' && extension && mediaContentTypes[extension]) || contentTypes[format]
}

/** Prusa's binary G-code, by its stored name: printers that do not list `.bgcode` cannot print it. */
export const isBinaryGcodeName = (filename: string) => extensionOf(filename) === 'bgcode'

/** Every `Content-Type` a stored file is served with. */
export const storedContentTypes = [...new Set([...Object.values(contentTypes), ...Object.values(mediaContentTypes)])]

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
