import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { idField } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { modelFilterParams } from './model-schemas.js'
import { tagName } from './models.routes.js'

export const maxBulkIds = 1_000

const { sort: _sort, order: _order, ...filterParams } = modelFilterParams

const tagList = z.array(tagName).min(1).max(50)
const collectionId = idField().openapi({ description: 'The collection, by id.' })

const BulkActionSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('add_tags'), tags: tagList }).strict(),
    z.object({ type: z.literal('remove_tags'), tags: tagList }).strict(),
    z.object({ type: z.literal('add_to_collection'), collection_id: collectionId }).strict(),
    z.object({ type: z.literal('remove_from_collection'), collection_id: collectionId }).strict(),
    z.object({ type: z.literal('delete') }).strict(),
  ])
  .openapi('BulkModelAction', {
    description:
      'What to do to every selected model: add or remove tags (any case; a model keeps its other tags), add to or remove from a collection, or delete (as `DELETE /api/v1/models/{id}` does, files and unreferenced content with it).',
  })

export const BulkModelsRequestSchema = z
  .object({
    model_ids: z
      .array(idField())
      .min(1)
      .max(maxBulkIds)
      .optional()
      .openapi({ description: `The models, by id (at most ${maxBulkIds}); ids of no model are skipped.` }),
    filter: z.object(filterParams).strict().optional().openapi({
      description:
        'Every model the list (`GET /api/v1/models`) shows with these parameters, however many: the same names and values as its query (`has_gcode` as `"true"`/`"false"`). `{}` selects the whole library.',
    }),
    action: BulkActionSchema,
    dry_run: z.boolean().default(false).openapi({
      description:
        'Only count what the selection holds (models and their files), changing nothing: what a confirmation asks about.',
    }),
  })
  .strict()
  .refine((body) => (body.model_ids === undefined) !== (body.filter === undefined), {
    message: 'give either `model_ids` or `filter`, not both or neither',
    path: ['model_ids'],
  })
  .openapi('BulkModelsRequest', {
    example: { filter: { tag: ['calibration'] }, action: { type: 'add_tags', tags: ['printed'] }, dry_run: false },
  })

export const bulkModelsRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/models/bulk',
  operationId: 'bulkModels',
  tags: ['Models'],
  summary: 'Act on many models at once',
  description: [
    `Applies one action to a selection: up to ${maxBulkIds} models by id, or every model matching a list filter (which`,
    'the server walks itself, so "all 80,000 matching" needs no ids from the client).',
    '',
    'The work runs in pages of 200 models, each page one transaction, with other requests served between pages; a',
    "deletion releases each page's stored content as it goes. An interrupted request leaves whole pages done, never half a",
    'model. Answers how many models changed (a model that already had the tags, or was already in the collection, does',
    'not count) and how many files they hold. With `dry_run` nothing changes and the answer counts the whole selection:',
    'ask it before a deletion to say "Delete 37 models and their 112 files?".',
  ].join('\n'),
  request: {
    body: { required: true, content: { 'application/json': { schema: BulkModelsRequestSchema } } },
  },
  responses: {
    200: {
      description: 'What the action changed (or, on a dry run, what the selection holds).',
      content: {
        'application/json': {
          schema: z
            .object({
              models: z.number().int().openapi({ description: 'Models changed (dry run: selected).' }),
              files: z
                .number()
                .int()
                .openapi({ description: 'Files those models hold (deleted with them by `delete`).' }),
            })
            .openapi('BulkModelsOutcome', { example: { models: 37, files: 112 } }),
        },
      },
    },
    404: problemResponse('The collection named by the action does not exist.'),
    422: problemResponse(
      'No selection, both `model_ids` and `filter`, too many ids, an unknown action or a bad tag (`validation_failed`, with the field in `errors`).',
    ),
  },
})
