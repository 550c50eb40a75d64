import { type Dirent, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Files under `folders` of `dataDir` (blob staging, backup scratch), searched through the
 * per-process directories they hold, as paths relative to `dataDir`; each directory's
 * `owner.json` marker is not counted, so an empty list means nothing half-done is left behind.
 */
export function filesUnder(dataDir: string, folders: string[]): string[] {
  const visit = (path: string): string[] => {
    let entries: Dirent[]
    try {
      entries = readdirSync(join(dataDir, path), { withFileTypes: true })
    } catch {
      return []
    }
    return entries.flatMap((entry) => {
      if (entry.isDirectory()) return visit(`${path}/${entry.name}`)
      return entry.name === 'owner.json' ? [] : [`${path}/${entry.name}`]
    })
  }
  return folders.flatMap(visit)
}
