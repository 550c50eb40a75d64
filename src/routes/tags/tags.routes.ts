import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { tagName } from '../models/models.routes.js'
import { problemResponse } from '../problem.js'

const tags = ['Tags']

export const TagSchema = z
  .object({
    name: z.string().openapi({ example: 'calibration' }),
    model_count: z.number().int().openapi({ description: 'Models carrying it (at least 1).' }),
    models_url: z.string().openapi({ description: 'Its models: the model list filtered by `tag`.' }),
  })
  .openapi('Tag')

/** A tag by name in the path, any case: `/api/v1/tags/print%20in%20place`. */
const TagParamSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'calibration', description: 'The tag, in any case.' }),
})

export const listTagsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/tags',
  operationId: 'listTags',
  tags,
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

export const renameTagRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/tags/{name}',
  operationId: 'renameTag',
  tags,
  summary: 'Rename a tag on every model, or merge it into another',
  description: [
    'Renames the tag on every model that carries it. A name that differs only in case respells the tag. A name another',
    'tag already has merges the two: every model of either carries the one tag (once), spelled as given, and the old',
    "name is gone from the list. The models' search documents follow at once and their `updated_at` moves. The same",
    'rules as a model edit apply to the new name (1-64 characters, no commas or control characters).',
  ].join(' '),
  request: {
    params: TagParamSchema,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({ name: tagName }).strict().openapi('RenameTagRequest'),
          example: { name: 'Calibration' },
        },
      },
    },
  },
  responses: {
    200: {
      description: 'The tag as it is now, and whether another tag was merged into it.',
      content: {
        'application/json': {
          schema: TagSchema.extend({
            merged: z.boolean().openapi({ description: 'The new name was another tag’s: the two are one now.' }),
          }).openapi('RenamedTag'),
        },
      },
    },
    404: problemResponse('No model carries this tag.'),
    422: problemResponse('A bad new name or an unknown field.'),
  },
})

export const deleteTagRoute = defineRoute(allow('user', 'manage'), {
  method: 'delete',
  path: '/api/v1/tags/{name}',
  operationId: 'deleteTag',
  tags,
  summary: 'Take a tag off every model',
  description:
    'The models stay; only the tag goes. Their search documents follow at once and their `updated_at` moves.',
  request: { params: TagParamSchema },
  responses: {
    204: { description: 'Taken off every model that carried it.' },
    404: problemResponse('No model carries this tag.'),
  },
})
