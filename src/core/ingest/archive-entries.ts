import type { ZipEntry } from '../formats/zip-reader.js'

/** An upload unpacked rather than stored as one file: a zip, by its name. */
export const isArchiveName = (filename: string) => /\.zip$/i.test(filename.trim())

/** The last segment of an entry's path. */
export const baseName = (path: string) => path.replace(/\/$/, '').split('/').at(-1) ?? path

/** Clutter that archivers of macOS and Windows add beside the files someone meant to pack. */
export function clutterReason(path: string): string | null {
  if (path.split('/')[0] === '__MACOSX') return 'macOS resource data (__MACOSX/), not a file of the model'
  const base = baseName(path)
  if (base === '.DS_Store') return 'macOS folder settings (.DS_Store), not a file of the model'
  if (base.toLowerCase() === 'thumbs.db') return 'Windows thumbnail cache (Thumbs.db), not a file of the model'
  return null
}

/**
 * Why an entry is not unpacked, judged from what the central directory declares; null for an
 * entry to store. Entries refused while they inflate get their reason from the reader.
 */
export function skipReason(entry: ZipEntry, maxEntryBytes: number): string | null {
  if (entry.isDirectory) return 'a folder: its files are unpacked on their own'
  if (entry.isSymlink) return 'a symbolic link: links are not followed'
  const clutter = clutterReason(entry.name)
  if (clutter) return clutter
  if (isArchiveName(entry.name)) return 'nested archives are not unpacked: upload it on its own'
  if (entry.size === 0) return 'an empty file'
  if (entry.size > maxEntryBytes)
    return `${entry.size} bytes, more than the upload limit of ${maxEntryBytes} bytes (VAULT_MAX_UPLOAD_BYTES)`
  return null
}
