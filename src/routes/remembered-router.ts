import type { Result, Router } from 'hono/router'
import { TrieRouter } from 'hono/router/trie-router'

/** How many paths' matches are kept: the paths a whole install's clients ask for again and again. */
const matchesKept = 4096
/** Longer paths are matched each time, so a client sending long random paths cannot make the memory grow. */
const longestPathKept = 256

/**
 * Hono's `TrieRouter`, with the match of each method and path remembered. Hono would pick the trie
 * anyway: its faster `RegExpRouter` refuses a static and a parameter route side by side
 * (`/api/v1/models/stats` and `/api/v1/models/:id`). Walking the trie splits the path and visits
 * every route's middleware on every request, a few µs of a cheap request; clients ask for the
 * same paths again and again. A match depends only on the method and the path (never the query),
 * Hono only reads it, and adding a route forgets them all.
 */
export function rememberedTrieRouter<T>(): Router<T> {
  const trie = new TrieRouter<T>()
  const matches = new Map<string, Result<T>>()
  return {
    name: 'TrieRouter (remembered)',
    add(method, path, handler) {
      matches.clear()
      trie.add(method, path, handler)
    },
    match(method, path) {
      if (path.length > longestPathKept) return trie.match(method, path)
      const key = `${method} ${path}`
      const known = matches.get(key)
      if (known) return known
      const found = trie.match(method, path)
      // Map order is insertion order: the oldest goes first.
      if (matches.size >= matchesKept) matches.delete(matches.keys().next().value as string)
      matches.set(key, found)
      return found
    },
  }
}
