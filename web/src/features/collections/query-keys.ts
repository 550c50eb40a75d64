/** The collections feature's query keys, in one place. */
export const collectionsKeys = {
  coverChoices: (id: string) => ['collections', 'cover-choices', id] as const,
}

/** Other features' query-key roots (by value: features do not import each other) that show collections. */
export const showCollections = [['model'], ['library'], ['overview']] as const
