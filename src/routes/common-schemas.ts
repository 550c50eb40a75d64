import { z } from '@hono/zod-openapi'

/** The `{id}` path parameter of every route that addresses one record. */
export const IdParamSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'id', in: 'path' } }),
})
