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

/** Every leading run of a G-code file name's words: `box-holder_0.2mm_PLA.gcode` → `box`, `box-holder`, `box-holder-0.2mm`, … */
export function fileNamePrefixes(gcodeFilename: string): string[] {
  const parts = nameKey(gcodeFilename).split('-')
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
