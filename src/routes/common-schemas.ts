import { z } from '@hono/zod-openapi'

/** The `{id}` path parameter of every route that addresses one record. */
export const IdParamSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' } }),
})

/**
 * `schema` refused unless it matches `pattern` (a regex with the `u` flag), with `message`. The
 * document carries the pattern's source alone: JSON Schema reads a `pattern` as an ECMA-262
 * regex with `u` semantics, and zod-to-openapi would otherwise append the JS flags (`…$/u`).
 */
export const matching = (schema: z.ZodString, pattern: RegExp, message: string) =>
  schema.regex(pattern, message).openapi({ pattern: pattern.source })
