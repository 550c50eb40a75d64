import type { LibraryQuery } from './library-query'

/** The library feature's query keys, in one place. */
export const libraryKeys = {
  all: ['library'] as const,
  list: (query: LibraryQuery) => ['library', 'list', query] as const,
}
