import type { Kysely, RawBuilder, SqlBool } from 'kysely'
import type { DatabaseKind } from '../db/database.js'
import type { Database } from '../db/schema.js'
import { postgresSearchIndex } from './search-index-postgres.js'
import { sqliteSearchIndex } from './search-index-sqlite.js'

/**
 * Full-text search over models, one implementation per database (SQLite FTS5, PostgreSQL
 * `tsvector`). Both see the same words: documents and queries are normalised here first
 * (diacritics removed, lower case, everything but letters and digits turned into spaces), so
 * neither tokenizer's own rules (PostgreSQL reads `box.stl` as one host-like token) make the
 * two disagree. A query matches a model when every term is the start of a word of its document.
 */
export interface SearchIndex {
  /** Replaces the model's document; run it in the transaction that changed the model. */
  put(db: Kysely<Database>, modelId: string, text: string): Promise<void>
  /** A condition on `models.id` that holds for models whose document matches every term (non-empty, from `searchTerms`). */
  matches(terms: string[]): RawBuilder<SqlBool>
}

export function searchIndexFor(kind: DatabaseKind): SearchIndex {
  return kind === 'postgres' ? postgresSearchIndex : sqliteSearchIndex
}

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
