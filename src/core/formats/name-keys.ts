/** The keys by which files are matched to models: normalised names of meshes, sliced objects and G-code files. */

/** Lower case, no extension, runs of spaces, dashes and underscores folded: "Shape Box.STL" → "shape-box". */
export const nameKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/\.[a-z0-9]{1,5}$/, '')
    .replace(/[\s_-]+/g, '-')
    .replace(/^-|-$/g, '')

/** An object's name without the instance suffix slicers add: PrusaSlicer's `box.stl id:0 copy 0` (comments) or `box.stl_id_0_copy_0` (labels). */
export const objectKey = (name: string) => nameKey(name.replace(/[\s_]id[:_]\d+[\s_]copy[\s_]\d+$/i, ''))

/** Every leading run of a sliced file name's words: `box-holder_0.2mm_PLA.gcode` (or `.gcode.3mf`) → `box`, `box-holder`, `box-holder-0.2mm`, … */
export function fileNamePrefixes(gcodeFilename: string): string[] {
  // A sliced 3MF is `<name>.gcode.3mf`: the `.gcode` left after the extension names no mesh.
  const parts = nameKey(gcodeFilename)
    .replace(/\.gcode$/, '')
    .split('-')
  return parts.map((_, i) => parts.slice(0, i + 1).join('-'))
}

/**
 * The mesh names a G-code says it was sliced from, as `sliced_sources` keeps them for a mesh that
 * arrives after its G-code: the sliced objects' names when the slicer labelled objects, else every
 * leading run of the file name's words (a mesh named by a shorter run may be another object's,
 * which is why labelled objects win).
 */
export function slicedSourceKeys(objectNames: string[], gcodeFilename: string): string[] {
  const keys = objectNames.length > 0 ? objectNames.map(objectKey) : fileNamePrefixes(gcodeFilename)
  return [...new Set(keys)].filter((key) => key !== '')
}

/**
 * The objects a stored file says it was sliced from, by its format and stored metadata; undefined
 * for a file that is not sliced. A G-code (text or binary) is sliced, with its labelled objects or
 * none. A 3MF that carries sliced plates (a `.gcode.3mf`) is sliced too: its objects are those on
 * its sliced plates and the package's named objects. Any other 3MF is a mesh.
 */
export function slicedObjectNames(format: string, metadata: unknown): string[] | undefined {
  const names = (list: unknown, pick: (item: unknown) => unknown) =>
    Array.isArray(list) ? list.map(pick).filter((name): name is string => typeof name === 'string' && name !== '') : []
  const stored = (metadata ?? {}) as { gcode?: { objects?: unknown }; plates?: unknown; objects?: unknown }
  if (format === 'gcode') return names(stored.gcode?.objects, (name) => name)
  if (format !== '3mf' || !Array.isArray(stored.plates) || stored.plates.length === 0) return undefined
  const onPlates = stored.plates.flatMap((plate) => names((plate as { objects?: unknown } | null)?.objects, (n) => n))
  const named = names(stored.objects, (object) => (object as { name?: unknown } | null)?.name)
  return [...new Set([...onPlates, ...named])]
}

/** The formats of the files a sliced file names as its source (meshes and CAD): what its name keys are looked up among. */
export const slicedFromFormats = ['stl', '3mf', 'obj', 'step'] as const
