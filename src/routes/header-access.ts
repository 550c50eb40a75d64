import type { Context } from 'hono'

/**
 * How the HTTP layer reads a request's headers and adds one to its answer. Through the Fetch API
 * (`fetchHeaderAccess`) on every runtime; the Node adapter has a cheaper way (node-header-access.ts).
 */
export interface HeaderAccess {
  /** The request's header `name` (lower case), as the Fetch API's `Headers.get` gives it: repeats joined by ", ". */
  read(c: Context, name: string): string | undefined
  /** Sets header `name` on whatever answer the request gets, error answers included. */
  setOnAnswer(c: Context, name: string, value: string): void
}

/** Through Hono's request and context: the Fetch API's `Headers` on both sides. */
export const fetchHeaderAccess: HeaderAccess = {
  read: (c, name) => c.req.header(name),
  setOnAnswer: (c, name, value) => c.header(name, value),
}
