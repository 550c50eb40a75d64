/** Where a file sits inside its model: '/'-separated folder names, '' for the top. */

const maxFolderLength = 1_024
const maxDepth = 32

/**
 * A folder as given (a zip entry's or a browser's relative path, `\` or `/` separated) in the
 * one form the vault keeps: no empty or `.` segments, no leading or trailing slash. Undefined
 * for one the vault refuses: a `..` segment, a control character, deeper than 32 folders or
 * longer than 1,024 characters.
 */
export function cleanFolder(raw: string): string | undefined {
  const segments = raw.split(/[\\/]/).filter((segment) => segment !== '' && segment !== '.')
  if (segments.some((segment) => segment === '..' || /\p{Cc}/u.test(segment))) return undefined
  const folder = segments.join('/')
  return segments.length <= maxDepth && folder.length <= maxFolderLength ? folder : undefined
}

/** The folder part of a relative path (`stls/nested/tail.stl` → `stls/nested`), cleaned; '' for a bare name. */
export function folderOfPath(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'))
  return slash < 0 ? '' : (cleanFolder(path.slice(0, slash)) ?? '')
}
