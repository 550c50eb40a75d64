/**
 * The upload feature reads no queries of its own; these are the other features' query-key roots
 * (by value: features do not import each other) that a finished upload makes stale.
 */
export const staleAfterUpload = [['library'], ['overview'], ['model'], ['collections']] as const
