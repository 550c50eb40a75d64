import { collectionsKey } from '../../api/use-collections'
import { tagsKey } from '../../api/use-tags'

/**
 * The upload feature reads no queries of its own; these are the other features' query-key roots
 * (by value: features do not import each other) that a finished upload makes stale, and the shared
 * tag and collection lists, whose counts it changes.
 */
export const staleAfterUpload = [
  ['library'],
  ['overview'],
  ['model'],
  ['collections'],
  // The header's sign of the background analysis, which every stored file joins.
  ['analysis'],
  collectionsKey,
  tagsKey,
] as const
