import type { Dirent } from 'node:fs'
import { opendir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** A file found under the imported folder. */
export interface FoundFile {
  /** Relative to the imported folder, with `/` between segments on every platform. */
  path: string
  absolutePath: string
  size: number
  mtimeMs: number
}

/** A file or folder left out, and why. */
export interface SkippedFile {
  path: string
  reason: string
}

export interface FoundTree {
  files: FoundFile[]
  /**
   * Symbolic links (never followed, so a link cannot pull in files from elsewhere or loop) and
   * folders that could not be read.
   */
  skipped: SkippedFile[]
}

/** System litter no one means to import, hidden or not. */
const litter = new Set(['__macosx', '.ds_store', 'thumbs.db', 'desktop.ini'])

const isSkipped = (name: string, includeHidden: boolean) =>
  litter.has(name.toLowerCase()) || (!includeHidden && name.startsWith('.'))

/** Every regular file under `root`, in name order, leaving out litter and (unless asked) hidden files and folders. */
export async function walkTree(root: string, options: { includeHidden: boolean }): Promise<FoundTree> {
  const tree: FoundTree = { files: [], skipped: [] }
  const visit = async (relative: string): Promise<void> => {
    const entries = []
    try {
      for await (const entry of await opendir(join(root, relative))) entries.push(entry)
    } catch (error) {
      if (!relative) throw error
      tree.skipped.push({ path: relative, reason: `a folder that cannot be read (${(error as Error).message})` })
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (isSkipped(entry.name, options.includeHidden)) continue
      const path = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isSymbolicLink()) tree.skipped.push({ path, reason: 'a symbolic link: links are not followed' })
      else if (entry.isDirectory()) await visit(path)
      else if (entry.isFile()) tree.files.push(await found(root, path))
      else tree.skipped.push({ path, reason: `${specialKind(entry)}: only regular files are imported` })
    }
  }
  await visit('')
  return tree
}

async function found(root: string, path: string): Promise<FoundFile> {
  const absolutePath = join(root, path)
  const stats = await stat(absolutePath)
  return { path, absolutePath, size: stats.size, mtimeMs: stats.mtimeMs }
}

/** What a directory entry that is neither a file, a folder nor a link is, in words. */
function specialKind(entry: Dirent): string {
  if (entry.isFIFO()) return 'a named pipe (FIFO)'
  if (entry.isSocket()) return 'a socket'
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device'
  return 'a special file'
}
