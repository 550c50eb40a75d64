import type { FileRole } from '../library/file-roles.js'

/**
 * A Frictionless-style name: lower case ASCII letters, digits and `_`, every other run of
 * characters one `-`. Accents are dropped rather than the letters (`Schöne Vase` → `schone-vase`).
 * At most 80 characters; `fallback` when nothing is left.
 */
export function slugify(text: string, fallback: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .slice(0, 80)
    .replace(/^-+|-+$/g, '')
  return slug || fallback
}

/** Hands out `slug`, `slug-2`, `slug-3`, … so no two callers get the same name. */
export function uniqueSlugs(): (slug: string) => string {
  const taken = new Set<string>()
  return (slug) => {
    let candidate = slug
    for (let n = 2; taken.has(candidate); n++) candidate = `${slug}-${n}`
    taken.add(candidate)
    return candidate
  }
}

/** The folder each role's files go in, inside a model's package; parts lie at its root. */
const roleFolders: Record<FileRole, string> = { part: '', image: 'images/', document: 'documents/' }

/** Entries a package's root holds itself, so no file may take their names. */
const reservedRootNames = ['datapackage.json', 'images', 'documents']

/**
 * Paths for a model's files inside its package: `Benchy.stl`, `images/photo.jpg`, `stls/supported/Body.stl`
 * for a file in a folder of its model (below `files/` should that folder's name be taken). A name used
 * twice in one folder gets ` (2)`, ` (3)` before its extension. Names are compared regardless
 * of case, since Windows and macOS unpack `Part.STL` and `part.stl` onto one file. A name that
 * is only dots (`..`) would step out of its folder when unpacked, so it becomes `file`.
 */
export function packagePaths(): (name: string, role: FileRole, modelFolder: string) => string {
  const taken = new Set(reservedRootNames)
  return (name, role, modelFolder) => {
    // A file in a folder of its model keeps it; one at the top goes in its role's folder.
    const folder = modelFolder
      ? `${reservedRootNames.includes(modelFolder.split('/')[0]?.toLowerCase() ?? '') ? 'files/' : ''}${modelFolder}/`
      : roleFolders[role]
    const safe = /^\.*$/.test(name) ? 'file' : name
    const dot = safe.lastIndexOf('.')
    const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, '']
    let candidate = safe
    for (let n = 2; taken.has(`${folder}${candidate}`.toLowerCase()); n++) candidate = `${stem} (${n})${extension}`
    taken.add(`${folder}${candidate}`.toLowerCase())
    return `${folder}${candidate}`
  }
}
