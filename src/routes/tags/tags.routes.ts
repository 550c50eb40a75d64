import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'

export const TagSchema = z
  .object({
    name: z.string().openapi({ example: 'calibration' }),
    model_count: z.number().int().openapi({ description: 'Models carrying it (at least 1).' }),
    models_url: z.string().openapi({ description: 'Its models: the model list filtered by `tag`.' }),
  })
  .openapi('Tag')

export const listTagsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/tags',
  operationId: 'listTags',
  tags: ['Tags'],
  summary: 'Tags in use, with model counts',
  description:
    'Every tag at least one model carries, by name (ignoring case). Tags are set per model with `PATCH /api/v1/models/{id}`; a tag exists while a model carries it.',
  responses: {
    200: {
      description: 'The tags.',
      content: { 'application/json': { schema: z.object({ items: z.array(TagSchema) }).openapi('TagList') } },
    },
  },
})
