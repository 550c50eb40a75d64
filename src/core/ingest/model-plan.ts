import { roleOf } from '../library/file-roles.js'
import { folderOfPath } from '../library/folders.js'
import { formatOf, isMeshFormat } from './file-formats.js'

/**
 * The rules every way of bringing many files in at once (the folder import, a zip) groups them
 * into models by: which files make a model, the order a model's files are sent in, where each
 * file sits inside its model, and which file is its README. Pure: paths are '/'-separated.
 */

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)

/**
 * The order a model's files are sent (or unpacked) in, which decides the model: meshes first,
 * then G-code and CAD files, then other parts (slicer configs, scripts: files many models may
 * share), then pictures and documents. Only the first two can make or find a model.
 */
export function sendingRank(path: string): number {
  const format = formatOf(baseName(path))
  if (isMeshFormat(format)) return 0
  if (format === 'gcode' || format === 'step') return 1
  return roleOf(format) === 'part' ? 2 : 3
}

/** Whether the file can make (or find) a model: a mesh, G-code or CAD file, never an extra many models share. */
export const makesModel = (path: string): boolean => sendingRank(path) < 2

/** `items` in sending order; stable, so within a rank they keep their order. */
export const inSendingOrder = <T>(items: readonly T[], pathOf: (item: T) => string): T[] =>
  [...items].sort((a, b) => sendingRank(pathOf(a)) - sendingRank(pathOf(b)))

/**
 * Where the file at `path` sits inside the model whose files lie below `root` (a folder path, ''
 * for the whole tree): its folder below `root` (`stls/nested`) in the form the vault keeps, ''
 * at the top or outside `root`.
 */
export function folderInModel(root: string, path: string): string {
  const prefix = root === '' || root.endsWith('/') ? root : `${root}/`
  return path.startsWith(prefix) ? folderOfPath(path.slice(prefix.length)) : ''
}

const readmeName = /^readme(\.(md|markdown|txt))?$/i

/** Whether a file named `filename` in `folder` of its model is the model's README, whose text describes it. */
export const isModelReadme = (folder: string, filename: string): boolean => folder === '' && readmeName.test(filename)

/** Why a file of a folder tree or a zip becomes no file of any model. */
export const skipReasons = {
  noModelFile: 'its model folder holds no mesh, G-code or CAD file to make the model from',
  outsideModel:
    'a picture, document or other file outside any model folder, with no mesh, G-code or CAD file of its name beside it',
} as const
