import { collectionsKey } from '../../api/use-collections'
import { tagsKey } from '../../api/use-tags'

/** The merge suggestions feature's query keys, in one place. */
export const mergeSuggestionKeys = {
  all: ['merge-suggestions'] as const,
}

/**
 * Other features' query-key roots (by value: features do not import each other) that a merge changes,
 * and the shared tag and collection lists, whose counts it changes.
 */
export const showModels = [['library'], ['model'], ['overview'], collectionsKey, tagsKey] as const
