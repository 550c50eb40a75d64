/** The merge suggestions feature's query keys, in one place. */
export const mergeSuggestionKeys = {
  all: ['merge-suggestions'] as const,
}

/** Other features' query-key roots (by value: features do not import each other) that a merge changes. */
export const showModels = [['library'], ['model'], ['overview']] as const
