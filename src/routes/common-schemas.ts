import { z } from '@hono/zod-openapi'

/**
 * `schema` refused unless it matches `pattern` (a regex with the `u` flag), with `message`. The
 * document carries the pattern's source alone: JSON Schema reads a `pattern` as an ECMA-262
 * regex with `u` semantics, and zod-to-openapi would otherwise append the JS flags (`…$/u`).
 */
export const matching = (schema: z.ZodString, pattern: RegExp, message: string) =>
  schema.regex(pattern, message).openapi({ pattern: pattern.source })

/**
 * A record id as a client sends it: 1-100 characters without control characters (PostgreSQL's
 * text holds no NUL, so `%00` would otherwise fail the query instead of finding nothing).
 */
export const idField = () =>
  matching(z.string().min(1).max(100), /^[^\p{Cc}]+$/u, 'may not hold control characters').openapi({
    example: '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b',
  })

/** The `{id}` path parameter of every route that addresses one record. */
export const IdParamSchema = z.object({
  id: idField().openapi({ param: { name: 'id', in: 'path' } }),
})
