import type { components } from './schema'

type Collection = components['schemas']['Collection']

/**
 * Collections as a tree (`parent_id`): shared by the collections page, the library's filter and
 * the model page's picker.
 */

/** A collection in tree order, with how deep it sits (0 at the top) and the names from the top down to it. */
export interface PlacedCollection {
  collection: Collection
  depth: number
  path: string[]
}

/**
 * The collections depth first, each after its parent and siblings in the list's order (by name). A
 * collection whose parent is missing from the list (deleted meanwhile) shows at the top.
 */
export function treeOrder(collections: Collection[]): PlacedCollection[] {
  const ids = new Set(collections.map((collection) => collection.id))
  const children = new Map<string | null, Collection[]>()
  for (const collection of collections) {
    const parent = collection.parent_id !== null && ids.has(collection.parent_id) ? collection.parent_id : null
    children.set(parent, [...(children.get(parent) ?? []), collection])
  }
  const placed: PlacedCollection[] = []
  const visit = (parent: string | null, path: string[]) => {
    for (const collection of children.get(parent) ?? []) {
      const own = [...path, collection.name]
      placed.push({ collection, depth: path.length, path: own })
      visit(collection.id, own)
    }
  }
  visit(null, [])
  return placed
}

/** The ids of a collection and of every collection inside it. */
export function subtreeIds(collections: Collection[], id: string): Set<string> {
  const found = new Set([id])
  for (const { collection } of treeOrder(collections))
    if (collection.parent_id !== null && found.has(collection.parent_id)) found.add(collection.id)
  return found
}

/** A collection's place as one line: "Terrain › Walls". */
export const pathLabel = (placed: PlacedCollection) => placed.path.join(' › ')
