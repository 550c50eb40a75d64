/**
 * Search text as every `SearchIndex` sees it: documents and queries are normalised here
 * (diacritics removed, lower case, everything but letters and digits turned into spaces), so
 * no engine's tokenizer rules (PostgreSQL reads `box.stl` as one host-like token) make two
 * databases disagree.
 */

/** Longest document kept: PostgreSQL refuses a `tsvector` over 1 MB, and no model needs more. */
const maxDocumentChars = 200_000
/** More terms than this in one query are ignored. */
export const maxSearchTerms = 16

/** Text as the index stores it: accents removed, lower case, words separated by single spaces. */
export function normalizeSearchText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .slice(0, maxDocumentChars)
}

/** The distinct words of a search query; empty when it has none (punctuation only). */
export function searchTerms(query: string): string[] {
  const words = normalizeSearchText(query).split(' ').filter(Boolean)
  return [...new Set(words)].slice(0, maxSearchTerms)
}
